"""Writing reports: every file of one report replaced together or not at all.

write_reports(folder, [(name, text), ...]) writes each text to a temporary file beside
its target and renames them over their targets only once all are written, so a failed
run leaves the previous reports as they were. scripts/bench and scripts/lib/mutate.py
write their reports through it.
"""

import os


def write_reports(folder, outputs):
    os.makedirs(folder, exist_ok=True)
    temps = []
    try:
        for name, text in outputs:
            temp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
            temps.append(temp)
            with open(temp, "w", encoding="utf-8") as out:
                out.write(text)
        for (name, _), temp in zip(outputs, temps):
            os.replace(temp, os.path.join(folder, name))
    finally:
        for temp in temps:
            if os.path.exists(temp):
                os.remove(temp)
