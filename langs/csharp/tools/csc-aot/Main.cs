// Main.cs - csc-aot's entry point: csc.dll's own, so the command line,
// the response files, the diagnostics and the exit code are csc's.
public static class CscAot
{
  public static int Main (string[] args)
  {
    return Microsoft.CodeAnalysis.CSharp.CommandLine.Program.Main (args);
  }
}
