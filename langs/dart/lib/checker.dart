import 'dart:async';
import 'dart:convert';
import 'package:check/solution.dart';

void runTest(dynamic Function() body) {
  final out = StringBuffer();
  final watch = Stopwatch()..start();
  try {
    final value = runZoned(body, zoneSpecification: ZoneSpecification(
        print: (self, parent, zone, line) => out.writeln(line)));
    print(jsonEncode({"type": "result", "value": value, "output": out.toString(),
                      "time": watch.elapsedMilliseconds}));
  } catch (e) {
    print(out);
    print(e);
    print(jsonEncode({"type": "error", "value": e.toString()}));
  }
}

void main() {
  runTest(() => solution(1, 1));
  runTest(() => solution(2, 1));
  runTest(() => solution(3, 2));
}
