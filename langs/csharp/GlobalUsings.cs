// GlobalUsings.cs - what ImplicitUsings=enable gives a Microsoft.NET.Sdk
// console project; passed to csc by the direct build (Makefile), which has
// no MSBuild to generate it.  Checker.csproj leaves it out.
global using System;
global using System.Collections.Generic;
global using System.IO;
global using System.Linq;
global using System.Net.Http;
global using System.Threading;
global using System.Threading.Tasks;
