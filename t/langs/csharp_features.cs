// csharp_features.cs - C# 7-12 features and constant folding in one file,
// compiled by t/langs/csharp.py with the NativeAOT csc and with csc.dll:
// the two assemblies must be byte-identical (-deterministic+).  Not run.
using System.Numerics;
using System.Text;
using System.Text.RegularExpressions;
using System.Runtime.CompilerServices;
namespace app
{
  public record struct Point(double X, double Y) { public double Len => Math.Sqrt(X * X + Y * Y); }
  public interface IShape { double Area { get; } static abstract IShape Unit(); }
  public sealed class Sq : IShape { public double Area => 1.0; public static IShape Unit() => new Sq(); }
  public enum Color : byte { Red = 1, Green = 2, Blue = 4 }
  [Flags] public enum F { A = 1, B = 2, AB = A | B }
  public static class Ext { public static T Twice<T>(this T x, Func<T, T> f) => f(f(x)); }
  public class Features
  {
    const decimal D = 1.1m * 3m / 7m;
    const double E = 2.718281828459045e0;
    const float Fl = 3.4028235e38f;
    const string S = "caf\u00e9 " + nameof(Features);
    public static async Task<int> AsyncSum(IEnumerable<int> xs) { int s = 0; foreach (var x in xs) { await Task.Yield(); s += x; } return s; }
    public static IEnumerable<int> Gen(int n) { for (int i = 0; i < n; i++) yield return i * i; }
    public static async IAsyncEnumerable<int> AGen() { yield return 1; await Task.Delay(0); yield return 2; }
    public static string Pat(object o) => o switch
    {
      int i when i > 10 => $"big {i:X4}",
      int i => $"int {i,5}",
      string { Length: > 3 } s => s[..3],
      Point(var x, var y) => $"pt {x}/{y}",
      int[] and [var a, .., var b] => $"arr {a}..{b}",
      null => "null",
      _ => o.ToString() ?? "",
    };

    public static int Run()
    {
      var q = from x in Gen(10) where x % 2 == 0 let y = x * 3 orderby y descending select new { x, y };
      var big = BigInteger.Pow(2, 100) + BigInteger.One;
      Span<int> sp = stackalloc int[4]; sp[0] = 1;
      var t = (a: 1, b: "x"); var (a, b) = t;
      int Local(int z) => z + a;
      dynamic dyn = 5;
      var sb = new StringBuilder(); sb.Append(S).Append(D).Append(E).Append(Fl);
      var rx = new Regex(@"^\d+$");
      Func<int, int> lam = static x => x * 2;
      checked { int c = int.MaxValue - 1; c++; }
      var dict = new Dictionary<string, List<int>> { ["a"] = [1, 2], ["b"] = new() { 3 } };
      var rng = Enumerable.Range(0, 5).Select(i => i.Twice(v => v + 1)).ToArray();
      ref int r0 = ref rng[0]; r0 = 42;
      string raw = """
        raw "string" {x}
        """;
      var u8 = "abc"u8.ToArray();
      object boxed = Color.Red | Color.Blue;
      return q.Count() + (int)(big % 7) + sp[0] + t.a + b.Length + Local(1) + (int)dyn + sb.Length
        + (rx.IsMatch("123") ? 1 : 0) + lam(2) + dict["a"].Count + rng.Sum() + raw.Length + u8.Length
        + Pat(new[] { 1, 2, 3 }).Length + Pat(new Point(1, 2)).Length + (int)(Color)boxed + AsyncSum(Gen(3)).Result
        + (F.AB.HasFlag(F.A) ? 1 : 0) + Sq.Unit().Area.GetHashCode() * 0;
    }
  }
}
