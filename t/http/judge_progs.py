"""judge_progs.py - the programs t/http/judge.py judges: submissions that
end every way a judged program can, a checker and its small testlib-style
header, an interactor and its guessing-game players, and a+b in every
language of the issue.  Written for these tests; the header follows
testlib's conventions (argv "input output answer", exit codes 0 ok, 1 wa,
2 pe, 3 fail, 7 points) without being testlib."""

# One C++ program per way to end, chosen by the first word of stdin.
ENDINGS = r"""
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
int main() {
  char mode[16] = "";
  if (scanf("%15s", mode) != 1) return 9;
  std::string m = mode;
  if (m == "ok") { puts("42"); return 0; }
  if (m == "cpu") { volatile unsigned long x = 0; for (;;) x++; }
  if (m == "wall" || m == "idle") { sleep(60); return 0; }
  if (m == "mem") {
    for (int i = 0; i < 64; i++) { char *p = (char *)malloc(16 << 20); if (p) memset(p, i, 16 << 20); }
    return 0;
  }
  if (m == "out") { static char line[1024]; memset(line, 'x', 1023); for (;;) puts(line); }
  if (m == "exit") { fputs("exiting 3\n", stderr); return 3; }
  if (m == "segv") { raise(SIGSEGV); }
  if (m == "big") { for (int i = 0; i < 10000; i++) putchar('a' + i % 26); putchar('\n'); return 0; }
  return 8;
}
"""

AB_CPP = r"""
#include <cstdio>
#include <unistd.h>
int main() {
  long long a, b;
  if (scanf("%lld %lld", &a, &b) != 2) return 1;
  if (a >= 100) usleep(300000); /* the slow tests of stopOnFailure */
  printf("%lld\n", a + b);
  return 0;
}
"""

AB_WRONG_CPP = AB_CPP.replace("a + b", "a - b")

# A fresh sandbox per test: it finds no file, no process of another test
# (a test leaves both behind), and the build it runs is read-only to the
# next test (it deletes the binary it runs, which /tmp's sticky bit allows
# on the slot that built it; the next test still runs it).
ISOLATION_C = r"""
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void) {
  int found = 0, procs = 0;
  struct dirent *e;
  DIR *d = opendir("/proc");
  while (d && (e = readdir(d)) != NULL)
    procs += e->d_name[0] >= '0' && e->d_name[0] <= '9';
  if (access("/tmp/left-by-a-test", F_OK) == 0) found |= 1;
  if (access("left-by-a-test", F_OK) == 0) found |= 2;
  FILE *f = fopen("/tmp/left-by-a-test", "w");
  FILE *g = fopen("left-by-a-test", "w");
  if (!f || !g) found |= 4;
  int unlinked = unlink("/tmp/a.out") == 0;
  if (fork() == 0) { setsid(); sleep(30); _exit(0); }
  printf("found %d procs %d unlinked %d\n", found, procs, unlinked);
  return 0;
}
"""

# Bytes 0 to 255 out, whatever came in; the count of bytes in on stderr.
BYTES_CPP = r"""
#include <cstdio>
int main() {
  long n = 0;
  while (getchar() != EOF) n++;
  for (int i = 0; i < 256; i++) putchar(i);
  fprintf(stderr, "%ld", n);
  return 0;
}
"""

COUNT_CPP = r"""
#include <cstdio>
int main() { long n = 0; while (getchar() != EOF) n++; printf("%ld\n", n); return 0; }
"""

# A header in testlib's conventions, sent as one of the checker's files.
MINI_TESTLIB = r"""
#pragma once
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
enum TResult { _ok = 0, _wa = 1, _pe = 2, _fail = 3, _points = 7 };
struct InStream {
  FILE *f = nullptr;
  bool readLong(long long &v) { return f && fscanf(f, "%lld", &v) == 1; }
  bool seekEof() {
    int c;
    while ((c = fgetc(f)) != EOF && isspace(c)) {}
    if (c == EOF) return true;
    ungetc(c, f);
    return false;
  }
};
static InStream inf, ouf, ans;
[[noreturn]] static void quitf(TResult r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(r);
}
[[noreturn]] static void quitp(double points, const char *msg) {
  fprintf(stderr, "points %g\n%s\n", points, msg);
  exit(_points);
}
static void registerTestlibCmd(int argc, char **argv) {
  if (argc < 4) quitf(_fail, "usage: checker input output answer");
  inf.f = fopen(argv[1], "r");
  ouf.f = fopen(argv[2], "r");
  ans.f = fopen(argv[3], "r");
  if (!inf.f || !ouf.f || !ans.f) quitf(_fail, "cannot open input, output or answer");
}
"""

# The problem: print a+b, then a*b.  Sum only: half the points.
CHECKER_CPP = r"""
#include "testlib.h"
int main(int argc, char **argv) {
  registerTestlibCmd(argc, argv);
  long long a, b, sum, prod, s, p;
  inf.readLong(a);
  inf.readLong(b);
  if (a == 13) abort(); /* a checker that crashes */
  ans.readLong(sum);
  ans.readLong(prod);
  if (!ouf.readLong(s)) quitf(_pe, "expected a number");
  if (s != sum) quitf(_wa, "sum %lld, expected %lld", s, sum);
  if (!ouf.readLong(p)) quitp(0.5, "the sum only");
  if (p != prod) quitf(_wa, "product %lld, expected %lld", p, prod);
  if (!ouf.seekEof()) quitf(_pe, "extra output");
  quitf(_ok, "sum and product");
}
"""

SUM_PROD_CPP = r"""
#include <cstdio>
int main() {
  long long a, b;
  if (scanf("%lld %lld", &a, &b) != 2) return 1;
  if (a == 7) printf("%lld\n", a + b);             /* partial */
  else if (a == 8) printf("x\n");                  /* presentation */
  else if (a == 9) printf("%lld %lld\n", a + b + 1, a * b); /* wrong */
  else printf("%lld %lld\n", a + b, a * b);
  return 0;
}
"""

# The guessing game: the secret in the input file, ten guesses at most.
INTERACTOR_CPP = r"""
#include <cstdio>
int main(int argc, char **argv) {
  FILE *in = argc > 1 ? fopen(argv[1], "r") : nullptr;
  int secret;
  if (!in || fscanf(in, "%d", &secret) != 1) return 3;
  for (int q = 1;; q++) {
    char op[8];
    int x;
    if (scanf("%7s %d", op, &x) != 2) { fprintf(stderr, "no guess after %d\n", q - 1); return 1; }
    if (q > 10) { fprintf(stderr, "too many guesses\n"); return 1; }
    if (x == secret) { printf("=\n"); fflush(stdout); fprintf(stderr, "found in %d\n", q); return 0; }
    printf(x < secret ? "higher\n" : "lower\n");
    fflush(stdout);
  }
}
"""

GUESS_BINARY = r"""
#include <cstdio>
int main() {
  int lo = 1, hi = 1000;
  while (lo <= hi) {
    int m = (lo + hi) / 2;
    char r[16];
    printf("? %d\n", m);
    fflush(stdout);
    if (scanf("%15s", r) != 1 || r[0] == '=') return 0;
    if (r[0] == 'h') lo = m + 1; else hi = m - 1;
  }
  return 0;
}
"""

GUESS_LINEAR = r"""
#include <cstdio>
int main() {
  for (int x = 1; x <= 1000; x++) {
    char r[16];
    printf("? %d\n", x);
    fflush(stdout);
    if (scanf("%15s", r) != 1 || r[0] == '=') return 0;
  }
  return 0;
}
"""

# An interactor that writes a megabyte before it reads: against a program
# that never reads, both block on the pipes between them.
FLOOD_INTERACTOR_PY = """import sys
sys.stdout.write("x" * (1 << 20))
sys.stdout.flush()
sys.stdin.readline()
"""

GUESS_SILENT = r"""
#include <unistd.h>
int main() { sleep(60); return 0; }
"""

# a+b (and a wrong a-b) in every language the issue names.
AB = {
    "python": ("main.py", "a, b = map(int, input().split())\nprint(a + b)\n"),
    "js": ("main.js", "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
                      ".map(Number);\nconsole.log(a + b);\n"),
    "java": ("Main.java", "import java.util.*;\npublic class Main { public static void main(String[] x) "
                          "{ Scanner s = new Scanner(System.in); long a = s.nextLong(), b = s.nextLong();"
                          " System.out.println(a + b); } }\n"),
    "c": ("main.c", "#include <stdio.h>\nint main(void){ long a, b; if (scanf(\"%ld %ld\", &a, &b) != 2)"
                    " return 1; printf(\"%ld\\n\", a + b); return 0; }\n"),
    "cpp": ("main.cpp", AB_CPP),
    "rust": ("main.rs", "use std::io::Read;\nfn main() { let mut s = String::new(); "
                        "std::io::stdin().read_to_string(&mut s).unwrap(); let v: Vec<i64> = "
                        "s.split_whitespace().map(|x| x.parse().unwrap()).collect(); "
                        "println!(\"{}\", v[0] + v[1]); }\n"),
    "golang": ("main.go", "package main\nimport \"fmt\"\nfunc main() { var a, b int64; "
                          "fmt.Scan(&a, &b); fmt.Println(a + b) }\n"),
}


def wrong(lang):
    """The same program printing a-b."""
    name, src = AB[lang]
    if lang == "js":
        return name, src.replace("a + b", "a - b")
    return name, src.replace("a + b", "a - b").replace("v[0] + v[1]", "v[0] - v[1]")
