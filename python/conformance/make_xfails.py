"""Writes python/conformance/xfails.txt from a junit XML report of a conformance run without an
xfails file: one line per failing test id, "id  # reason", the reason classified from the
failure message. Lines are reviewed by hand before committing (see docs/python.md).
Usage: python make_xfails.py report.xml > xfails.txt"""
import re
import sys
import xml.etree.ElementTree as ET

MISSING = "not in the C++ core yet"


def reason(test_id, msg):
    fn = re.search(r"(\w+) (?:is not defined in|not found in array module)", msg)
    if fn:
        return f"{fn.group(1)}: {MISSING}"
    m = re.search(r"cgrad is missing the [\w ]+ function (\w+)\(\)", msg) or re.search(
        r"cgrad\.(\w+) is not available yet", msg)
    if m:
        return f"{m.group(1)}: {MISSING}"
    m = re.search(r"missing the method (__\w+__)", msg) or re.search(r"(__\w+__) not found in array object", msg)
    if m:
        return f"Array.{m.group(1)}: its function is {MISSING}"
    m = re.search(r"has no attribute '(linalg|fft)'", msg)
    if m:
        return f"the {m.group(1)} extension is not implemented"
    if "no real float dtype to match None" in msg or "no complex dtype" in msg:
        return "complex special case: cgrad has no complex dtypes"
    if "'NoneType' object is not callable" in msg and "special_cases" in test_id:
        name = re.search(r"\[(\w+)\(", test_id) or re.search(r"\[(__\w+__)", test_id)
        return f"{name.group(1) if name else 'function'}: {MISSING} (special case)"
    m = re.search(r"unsupported operand type\(s\) for (\S+):", msg)
    if m:
        op = m.group(1).rstrip("=")
        what = {"//": "floor_divide", "%": "remainder", "<<": "bitwise_left_shift", ">>": "bitwise_right_shift",
                "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor", "**": "pow"}.get(op, op)
        return f"operator {m.group(1)}: {what} {MISSING}"
    if "gather/scatter" in msg:
        return "integer-array / boolean-mask indexing: no gather/scatter primitive in the C++ core"
    if "negative step" in msg:
        return "negative-step slices: no flip primitive in the C++ core"
    if "bitwise" in msg:
        return f"bitwise ops on integers: {MISSING}"
    first = msg.strip().splitlines()[0] if msg.strip() else "failure"
    return "wrong result or missing behaviour: " + first[:110]


def main(path):
    lines = []
    for case in ET.parse(path).getroot().iter("testcase"):
        fail = case.find("failure")
        if fail is None:
            fail = case.find("error")
        if fail is None:
            continue
        cls = case.get("classname", "")
        test_id = cls.replace(".", "/") + ".py::" + case.get("name")
        if "::" in cls:  # a test class
            test_id = cls
        msg = fail.get("message", "") + "\n" + (fail.text or "")
        lines.append(f"{test_id}  # {reason(test_id, msg)}")
    print("# cgrad's Array API conformance xfails: one failing test id per line, '  # reason'.")
    print("# tools/test_python.sh strips the reasons; make_xfails.py regenerates the list from a run.")
    for line in sorted(set(lines)):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1])
