// Program.cs - the entry point Codebattle's C# image provides: the
// client-sent check/Checker.cs defines app.Checker.Test.
namespace app
{
  public static class Program
  {
    public static void Main (string[] args)
    {
      Checker.Test (true);
    }
  }
}
