// SystemTextJson.cs - the part of .NET's System.Text.Json that Codebattle's
// generated C# checker uses (JsonSerializer.Serialize), for mono, which
// lacks the assembly.  Built only on the mono path (see Makefile); with a
// real .NET SDK this directory is excluded and the real library is used.
// Output follows System.Text.Json's defaults: public properties in
// declaration order, numbers in round-trip form, non-ASCII kept as \uXXXX
// escapes only for control characters.
using System;
using System.Collections;
using System.Globalization;
using System.Reflection;
using System.Text;

namespace System.Text.Json
{
  public class JsonSerializerOptions
  {
    public bool WriteIndented { get; set; }
  }

  public static class JsonSerializer
  {
    public static string Serialize<T> (T value, JsonSerializerOptions options = null)
    {
      var sb = new StringBuilder ();
      Write (sb, value, 0);
      return sb.ToString ();
    }

    static void Write (StringBuilder sb, object v, int depth)
    {
      if (depth > 64)
        throw new InvalidOperationException ("JSON nesting too deep");
      // if/else rather than type patterns: mcs does not implement them
      if (v == null) { sb.Append ("null"); return; }
      if (v is string) { WriteString (sb, (string)v); return; }
      if (v is char) { WriteString (sb, v.ToString ()); return; }
      if (v is bool) { sb.Append ((bool)v ? "true" : "false"); return; }
      if (v is double) { WriteDouble (sb, (double)v); return; }
      if (v is float) { WriteDouble (sb, (float)v); return; }
      if (v is decimal) { sb.Append (((decimal)v).ToString (CultureInfo.InvariantCulture)); return; }
      if (v is IDictionary)
        {
          sb.Append ('{');
          bool firstKey = true;
          foreach (DictionaryEntry e in (IDictionary)v)
            {
              if (!firstKey)
                sb.Append (',');
              firstKey = false;
              WriteString (sb, Convert.ToString (e.Key, CultureInfo.InvariantCulture));
              sb.Append (':');
              Write (sb, e.Value, depth + 1);
            }
          sb.Append ('}');
          return;
        }
      if (v is IEnumerable)
        {
          sb.Append ('[');
          bool first = true;
          foreach (object x in (IEnumerable)v)
            {
              if (!first)
                sb.Append (',');
              first = false;
              Write (sb, x, depth + 1);
            }
          sb.Append (']');
          return;
        }
      Type t = v.GetType ();
      if (t.IsPrimitive || t.IsEnum)
        {
          sb.Append (Convert.ToString (t.IsEnum ? Convert.ToInt64 (v) : v, CultureInfo.InvariantCulture));
          return;
        }
      sb.Append ('{');
      bool firstProp = true;
      foreach (PropertyInfo p in t.GetProperties (BindingFlags.Public | BindingFlags.Instance))
        {
          if (p.GetIndexParameters ().Length > 0)
            continue;
          if (!firstProp)
            sb.Append (',');
          firstProp = false;
          WriteString (sb, p.Name);
          sb.Append (':');
          Write (sb, p.GetValue (v), depth + 1);
        }
      sb.Append ('}');
    }

    static void WriteDouble (StringBuilder sb, double d)
    {
      if (double.IsNaN (d) || double.IsInfinity (d))
        throw new ArgumentException (".NET number values such as positive and negative infinity cannot be written as valid JSON.");
      sb.Append (d.ToString ("R", CultureInfo.InvariantCulture));
    }

    static void WriteString (StringBuilder sb, string s)
    {
      sb.Append ('"');
      foreach (char c in s)
        {
          switch (c)
            {
            case '"': sb.Append ("\\\""); break;
            case '\\': sb.Append ("\\\\"); break;
            case '\n': sb.Append ("\\n"); break;
            case '\r': sb.Append ("\\r"); break;
            case '\t': sb.Append ("\\t"); break;
            default:
              if (c < 0x20)
                sb.Append ("\\u").Append (((int)c).ToString ("x4"));
              else
                sb.Append (c);
              break;
            }
        }
      sb.Append ('"');
    }
  }
}

namespace System.Text.Json.Serialization
{
  // Present so `using System.Text.Json.Serialization;` compiles.
  [AttributeUsage (AttributeTargets.Property | AttributeTargets.Field)]
  public sealed class JsonPropertyNameAttribute : Attribute
  {
    public JsonPropertyNameAttribute (string name) { Name = name; }
    public string Name { get; }
  }
}
