using System;
using System.IO;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;

namespace app
{
  public class Checker
  {
    public static void Test(bool success)
    {
      TextWriter oldOut = Console.Out;
      StringBuilder sb = new StringBuilder();
      List<AssertResult> results = new List<AssertResult>();
      try {
        Solution instance = new Solution();
        long start = 0;
        Console.SetOut(new StringWriter(sb));
        int a1 = 1;
        int b1 = 1;
        start = DateTime.Now.Ticks;
        object result1_ = instance.solution(a1, b1);
        results.Add(new AssertResult { type = "result", value = result1_,
                                       output = TakeOutput(sb),
                                       time = (DateTime.Now.Ticks - start) / 10000.0 });
        int a2 = 2;
        int b2 = 1;
        start = DateTime.Now.Ticks;
        object result2_ = instance.solution(a2, b2);
        results.Add(new AssertResult { type = "result", value = result2_,
                                       output = TakeOutput(sb),
                                       time = (DateTime.Now.Ticks - start) / 10000.0 });
        int a3 = 3;
        int b3 = 2;
        start = DateTime.Now.Ticks;
        object result3_ = instance.solution(a3, b3);
        results.Add(new AssertResult { type = "result", value = result3_,
                                       output = TakeOutput(sb),
                                       time = (DateTime.Now.Ticks - start) / 10000.0 });
        Console.SetOut(oldOut);
        foreach (AssertResult r in results) Console.WriteLine(r);
      } catch (Exception e) {
        Console.SetOut(oldOut);
        Console.WriteLine(new ErrorMessage { type = "error", value = e.Message });
        Console.WriteLine(e);
      }
    }

    static string TakeOutput(StringBuilder sb)
    {
      string text = sb.ToString();
      sb.Clear();
      return text;
    }

    class AssertResult
    {
      public string type { get; set; }
      public object value { get; set; }
      public string output { get; set; }
      public double time { get; set; }
      public override string ToString() { return JsonSerializer.Serialize(this); }
    }

    class ErrorMessage
    {
      public string type { get; set; }
      public string value { get; set; }
      public override string ToString() { return JsonSerializer.Serialize(this); }
    }
  }
}
