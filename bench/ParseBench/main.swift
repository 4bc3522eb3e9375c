// Parse throughput: parses each input of a fixed corpus repeatedly for a fixed
// time and prints one line per input: name, bytes, parses/s, MB/s.
//
//   ParseBench <fixtures dir> <SDL file> [seconds per input | nN] [input index]
//
// The SDL file's row is named after the file (`schema.graphql`: "schema SDL").
//
// `nN` (say `n2000`) parses each input exactly N times instead of for a time, for
// instruction counts under `valgrind --tool=callgrind`. An input index (0-based)
// runs that input alone, so bench/parse.sh can interleave ours and graphql-core's runs.
// bench/parse.sh runs this beside bench/parse.py (graphql-core) and prints a table.
import Foundation
import GraphQL

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(
        Data("usage: ParseBench <fixtures dir> <SDL file> [seconds | nN] [input index]\n".utf8))
    exit(2)
}
let fixtures = URL(fileURLWithPath: arguments[1])
let budget = arguments.count > 3 ? arguments[3] : "1"
let fixedParses: Int? = budget.hasPrefix("n") ? Int(budget.dropFirst()) : nil
let seconds = Double(budget) ?? 1
let only: Int? = arguments.count > 4 ? Int(arguments[4]) : nil

func read(_ url: URL) -> String {
    guard let text = try? String(contentsOf: url, encoding: .utf8) else {
        FileHandle.standardError.write(Data("cannot read \(url.path)\n".utf8))
        exit(1)
    }
    return text
}

let logIn = "mutation LogIn($input: LogInInput!) { logIn(input: $input) { viewer { sessionToken user { id objectId username email createdAt updatedAt } } clientMutationId } }"
let corpus: [(String, String)] = [
    ("kitchen-sink query", read(fixtures.appendingPathComponent("kitchen-sink.graphql"))),
    ("kitchen-sink SDL", read(fixtures.appendingPathComponent("schema-kitchen-sink.graphql"))),
    (URL(fileURLWithPath: arguments[2]).deletingPathExtension().lastPathComponent + " SDL", read(URL(fileURLWithPath: arguments[2]))),
    ("logIn mutation", logIn),
]

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

var sink = 0
for (index, (name, text)) in corpus.enumerated() where only == nil || only == index {
    let source = Source(text)
    // Warm up, and fail loudly if the input does not parse.
    do { sink &+= try parse(source, options: .trusted).definitions.count } catch {
        FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
        exit(1)
    }
    if let fixedParses {
        for _ in 0..<fixedParses {
            sink &+= (try? parse(source, options: .trusted))?.definitions.count ?? 0
        }
        print("\(name)\t\(source.bytes.count)\t\(fixedParses) parses")
        continue
    }
    // Warm up for a tenth of the budget (caches, branch predictors, CPU clock).
    let warmStart = now()
    while now() - warmStart < seconds / 10 {
        sink &+= (try? parse(source, options: .trusted))?.definitions.count ?? 0
    }
    var parses = 0
    let start = now()
    var elapsed = 0.0
    repeat {
        for _ in 0..<64 {
            sink &+= (try? parse(source, options: .trusted))?.definitions.count ?? 0
        }
        parses += 64
        elapsed = now() - start
    } while elapsed < seconds
    let perSecond = Double(parses) / elapsed
    let megabytes = perSecond * Double(source.bytes.count) / 1e6
    print("\(name)\t\(source.bytes.count)\t\(String(format: "%.0f", perSecond))\t\(String(format: "%.2f", megabytes))")
}
if sink == 42 { print("") }  // keep the parses observable
