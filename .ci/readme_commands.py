"""Print the README's set-up commands: the body of its first two ```bash blocks, one a line."""

import re
import sys
from pathlib import Path

text = Path(sys.argv[1]).read_text(encoding="utf-8")
blocks = re.findall(r"^```bash\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)[:2]
for block in blocks:
    lines = [line for line in block.splitlines() if line.strip()]
    print(" && ".join(lines))
