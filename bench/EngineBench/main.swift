// Engine throughput: parse + validate + execute on the project's schema.graphql with
// stub resolvers (bench/stubs.json), uncached (every step, every time) and cached
// (GraphQLService.prepare cache hit + execute). Prints one line per case:
// name, uncached ops/s, cached ops/s.
//
//   EngineBench <schema.graphql> <stubs.json> <introspection query file> [seconds per case]
//
// bench/engine.sh runs this interleaved with bench/engine.py (graphql-core) and prints a table.
import Foundation
import GraphQL
import JSON

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: EngineBench <schema.graphql> <stubs.json> <introspection query> [seconds]\n".utf8))
    exit(2)
}
let seconds = arguments.count > 4 ? Double(arguments[4]) ?? 1 : 1

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}
func read(_ path: String) -> String {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)") }
    return text
}
func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

let executable: ExecutableSchema<Void>
do {
    let schema = try GraphQLSchema.build(sdl: read(arguments[1]))
    guard case .object(let stubs)? = try? JSON.parse(read(arguments[2])), case .object(let data)? = stubs["gatehouse"] else {
        fail("bad stubs")
    }
    var resolvers = Resolvers<Void>()
    for type in schema.types {
        guard case .object(let object) = type, !object.name.hasPrefix("__") else { continue }
        if object.name == "Query" || object.name == "Mutation" {
            for field in object.fields {
                let value = ResolvedValue(data[field.name] ?? .null)
                resolvers.field("\(object.name).\(field.name)") { _, _, _, _ in value }
            }
        } else {
            resolvers.resolveFromJSON(object.name)
        }
    }
    executable = try ExecutableSchema(schema: schema, resolvers: resolvers)
} catch {
    fail("schema: \(error)")
}
let service = GraphQLService(executable: executable)

let logIn = "mutation LogIn($input: LogInInput!) { logIn(input: $input) { viewer { sessionToken user { id objectId username email createdAt updatedAt ACL { users { userId read write } } } } clientMutationId } }"
let logInVariables: JSONObject = ["input": .object(["username": "alice", "password": "pw", "clientMutationId": "m1"])]
let cases: [(String, String, JSONObject)] = [
    ("{ health }", "{ health }", [:]),
    ("logIn mutation", logIn, logInVariables),
    ("full introspection", read(arguments[3]), [:]),
]

/// Parse, validate, check limits and execute, as GraphQLService does without its cache.
func uncached(_ query: String, _ variables: JSONObject) -> Int {
    let source = Source(query)
    guard let document = try? parse(source) else { fail("parse failed") }
    var errors = validate(schema: executable.schema, document: document, source: source)
    if errors.isEmpty { errors = checkLimits(document, operationName: nil, limits: service.limits, source: source) }
    guard errors.isEmpty else { fail("invalid: \(errors)") }
    let result = executable.execute(document: document, source: source, variables: variables, context: ())
    return result.errors.count
}

func cached(_ query: String, _ variables: JSONObject) -> Int {
    guard case .success(let prepared) = service.prepare(query) else { fail("prepare failed") }
    return service.execute(prepared, operationName: nil, variables: variables, context: ()).errors.count
}

func rate(_ body: () -> Int) -> Double {
    var sink = body()  // warm up (and the cache)
    var runs = 0
    let start = now()
    var elapsed = 0.0
    repeat {
        for _ in 0..<16 { sink &+= body() }
        runs += 16
        elapsed = now() - start
    } while elapsed < seconds
    if sink != 0 { fail("execution errors") }
    return Double(runs) / elapsed
}

// Profiling mode (for callgrind): ENGINEBENCH_PROFILE=<case 0-2>:<uncached|cached>:<runs> runs one
// case that many times after one warm-up run and exits, printing nothing.
if let profile = ProcessInfo.processInfo.environment["ENGINEBENCH_PROFILE"] {
    let parts = profile.split(separator: ":").map(String.init)
    guard parts.count == 3, let index = Int(parts[0]), cases.indices.contains(index), let runs = Int(parts[2]) else {
        fail("ENGINEBENCH_PROFILE=<case>:<uncached|cached>:<runs>")
    }
    let (_, query, variables) = cases[index]
    let body = parts[1] == "cached" ? { cached(query, variables) } : { uncached(query, variables) }
    var sink = body()
    for _ in 0..<runs { sink &+= body() }
    exit(sink == 0 ? 0 : 1)
}

for (name, query, variables) in cases {
    let result = executable.execute(
        document: try! parse(Source(query)), source: Source(query), variables: variables, context: ())
    if !result.errors.isEmpty { fail("\(name): \(result.errors)") }
    let slow = rate { uncached(query, variables) }
    let fast = rate { cached(query, variables) }
    print("\(name)\t\(String(format: "%.0f", slow))\t\(String(format: "%.0f", fast))")
}
