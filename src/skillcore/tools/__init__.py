"""The tools the model sees: specs, the toolkit, replies, binary resources, preload and
redelivery."""
