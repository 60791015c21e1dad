"""The catalog in the prompt: rendering with budgets, ranking, relevance and prompt modes."""
