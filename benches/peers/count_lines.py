#!/usr/bin/env python3
"""Counts what a user writes for the model and the three operations of benchmark 9.

For each library, the lines of src/main.rs (as rustfmt formats it) between `// lines: NAME`
and `// end lines`, leaving out blank lines and comment lines: the imports, the model (and
the table, key and query types a library asks for), and one function each for get, put
and the 100-item query, signatures and closing braces included.
"""

import os
import re

source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src", "main.rs")
counts = {}
name = None
for line in open(source):
    text = line.strip()
    start = re.match(r"// lines: (\w+)$", text)
    if start:
        name = start.group(1)
        counts[name] = 0
    elif text == "// end lines":
        name = None
    elif name and text and not text.startswith("//"):
        counts[name] += 1
for name, count in sorted(counts.items(), key=lambda kv: kv[1]):
    print(f"{name:8} {count}")
