"""cs7.py - lets mono's C# 7 compiler build a Codebattle-generated checker.

The client declares list and dictionary arguments with C# 9 target-typed
`new()`:   List<List<string>> g1 = new() {new() {"Jack", "Alice"}};
mcs rejects that.  This rewrites each such declaration in place, giving
every `new()` the type it stands for, taken from the declared type:
            List<List<string>> g1 = new List<List<string>>() {new List<string>() {...}};
Only declarations of the shape `<type> <name> = new() ...;` are touched;
anything else is left for the compiler to judge.
"""
import re
import sys

DECL = re.compile(r"^(\s*)([A-Za-z_][\w<>, ]*?)\s+([A-Za-z_]\w*)\s*=\s*(new\(\).*);\s*$")


def split_type(t):
    """'Dictionary<string, List<int>>' -> ('Dictionary', ['string', 'List<int>'])."""
    t = t.strip()
    if "<" not in t:
        return t, []
    head, rest = t.split("<", 1)
    rest = rest[: rest.rindex(">")]
    args, depth, cur = [], 0, ""
    for ch in rest:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    args.append(cur.strip())
    return head.strip(), args


def element_types(t):
    """Types of the `new()` that may appear directly inside t's initializer."""
    head, args = split_type(t)
    if head in ("List", "IList", "HashSet") and args:
        return [args[0]]
    if head == "Dictionary" and len(args) == 2:
        return [args[1]]  # values: keys are string literals
    return []


def rewrite(expr, t):
    """Rewrites the `new()` at the start of expr (of type t) and nested ones."""
    out = "new %s()" % t
    i = len("new()")
    inner = element_types(t)
    elem = inner[0] if inner else None
    while i < len(expr):
        if expr.startswith("new()", i) and elem:
            out += "new %s()" % elem
            i += len("new()")
            # nested initializers of the element get the element's element
            sub_end = matching_end(expr, i)
            if sub_end > i:
                out += rewrite_body(expr[i:sub_end], elem)
                i = sub_end
            continue
        out += expr[i]
        i += 1
    return out


def matching_end(s, i):
    """If s[i:] starts (after spaces) with '{', index after its matching '}'."""
    j = i
    while j < len(s) and s[j] == " ":
        j += 1
    if j >= len(s) or s[j] != "{":
        return i
    depth, in_str, k = 0, False, j
    while k < len(s):
        c = s[k]
        if in_str:
            if c == "\\":
                k += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return len(s)


def rewrite_body(body, t):
    inner = element_types(t)
    elem = inner[0] if inner else None
    out, i = "", 0
    while i < len(body):
        if body.startswith("new()", i) and elem:
            out += "new %s()" % elem
            i += len("new()")
            end = matching_end(body, i)
            if end > i:
                out += rewrite_body(body[i:end], elem)
                i = end
            continue
        out += body[i]
        i += 1
    return out


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    changed = False
    for n, line in enumerate(lines):
        m = DECL.match(line)
        if not m:
            continue
        indent, t, name, expr = m.groups()
        new_expr = "new %s()" % t + rewrite_body(expr[len("new()"):], t)
        lines[n] = "%s%s %s = %s;" % (indent, t, name, new_expr)
        changed = True
    if changed:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
