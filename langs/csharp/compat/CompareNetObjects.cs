// CompareNetObjects.cs - the slice of the CompareNETObjects package that
// Codebattle's C# checkers have used (CompareLogic.Compare(a, b).AreEqual),
// for mono.  Deep structural equality: numbers by value, strings by
// ordinal, dictionaries by key set, sequences in order.
using System;
using System.Collections;

namespace KellermanSoftware.CompareNetObjects
{
  public class ComparisonResult
  {
    public bool AreEqual { get; internal set; }
    public string DifferencesString { get { return AreEqual ? "" : "objects differ"; } }
  }

  public class CompareLogic
  {
    public ComparisonResult Compare (object expected, object actual)
    {
      return new ComparisonResult { AreEqual = Equal (expected, actual, 0) };
    }

    static bool IsNumber (object o)
    {
      return o is sbyte || o is byte || o is short || o is ushort || o is int || o is uint
             || o is long || o is ulong || o is float || o is double || o is decimal;
    }

    static bool Equal (object a, object b, int depth)
    {
      if (depth > 64)
        return false;
      if (a == null || b == null)
        return a == null && b == null;
      if (IsNumber (a) && IsNumber (b))
        return Convert.ToDouble (a) == Convert.ToDouble (b);
      if (a is string || b is string)
        return a is string && b is string && string.Equals ((string)a, (string)b, StringComparison.Ordinal);
      if (a is IDictionary && b is IDictionary)
        {
          IDictionary da = (IDictionary)a, db = (IDictionary)b;
          if (da.Count != db.Count)
            return false;
          foreach (DictionaryEntry e in da)
            if (!db.Contains (e.Key) || !Equal (e.Value, db[e.Key], depth + 1))
              return false;
          return true;
        }
      if (a is IEnumerable && b is IEnumerable)
        {
          IEnumerator ia = ((IEnumerable)a).GetEnumerator (), ib = ((IEnumerable)b).GetEnumerator ();
          while (true)
            {
              bool ma = ia.MoveNext (), mb = ib.MoveNext ();
              if (ma != mb)
                return false;
              if (!ma)
                return true;
              if (!Equal (ia.Current, ib.Current, depth + 1))
                return false;
            }
        }
      return a.Equals (b);
    }
  }
}
