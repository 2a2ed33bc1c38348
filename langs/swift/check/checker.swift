import Foundation

struct Item: Encodable {
  let type: String
  let value: AnyEncodable
  let time: String
  let output: String?
}

struct AnyEncodable: Encodable {
  let wrapped: Encodable
  func encode(to encoder: Encoder) throws { try wrapped.encode(to: encoder) }
}

func runTest<T: Encodable>(_ body: () -> T) -> Item {
  let pipe = Pipe()
  let saved = dup(STDOUT_FILENO)
  dup2(pipe.fileHandleForWriting.fileDescriptor, STDOUT_FILENO)
  let start = Date()
  let value = body()
  let elapsed = Date().timeIntervalSince(start)
  fflush(stdout)
  dup2(saved, STDOUT_FILENO)
  close(saved)
  pipe.fileHandleForWriting.closeFile()
  let text = String(data: pipe.fileHandleForReading.readDataToEndOfFile(), encoding: .utf8) ?? ""
  return Item(type: "result", value: AnyEncodable(wrapped: value),
              time: String(format: "%.7f", elapsed), output: text.isEmpty ? nil : text)
}

@main
struct Checker {
  static func main() {
    var results: [Item] = []
    let a1: Int = 1
    let b1: Int = 1
    results.append(runTest { solution(a1, b1) })
    let a2: Int = 2
    let b2: Int = 1
    results.append(runTest { solution(a2, b2) })
    let a3: Int = 3
    let b3: Int = 2
    results.append(runTest { solution(a3, b3) })
    let data = try! JSONEncoder().encode(results)
    print(String(data: data, encoding: .utf8)!)
  }
}
