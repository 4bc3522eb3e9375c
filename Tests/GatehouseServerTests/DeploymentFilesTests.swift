import JSON
import ServerTestSupport
import TestSupport
import Foundation
import GatehouseServer
import Testing

/// docker-compose.yml and the Dockerfile (no Docker engine here: their content is checked).
@Suite struct DeploymentFilesTests {
    /// docker-compose.yml as JSON, through PyYAML.
    static func compose() throws -> JSON {
        let result = try Child.run(executable: "/usr/bin/env", [
            "python3", "-c", "import yaml, json, sys; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
            PackagePaths.root + "/docker-compose.yml",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONParser().parse(Array(result.stdout.utf8))
    }

    @Test func composeServices() throws {
        let compose = try Self.compose()
        let postgres = try #require(compose.at("services", "postgres"))
        #expect(postgres["healthcheck"]?["test"] != nil)
        let volumes = try #require(postgres["volumes"]?.arrayValue)
        #expect(volumes.contains { $0.stringValue?.hasSuffix(":/var/lib/postgresql/data") == true })

        let gatehouse = try #require(compose.at("services", "gatehouse"))
        let build = try #require(gatehouse["build"])
        #expect(build == "." || build["context"] == ".")
        if let dockerfile = build["dockerfile"] { #expect(dockerfile == "Dockerfile") }
        #expect(gatehouse["ports"]?.arrayValue?.contains { $0.stringValue?.hasSuffix(":1337") == true } == true)
        #expect(gatehouse.at("depends_on", "postgres", "condition") == "service_healthy")
        #expect(gatehouse.at("environment", "GATEHOUSE_PORT") == "1337")
        #expect(gatehouse.at("environment", "DATABASE_URL")?.stringValue?.contains("@postgres:5432/") == true)
    }

    @Test func composeEnvironmentNamesAreSettings() throws {
        let compose = try Self.compose()
        let names = Set(Settings.specs.map(\.environment))
        let environment = try #require(compose.at("services", "gatehouse", "environment"))
        let keys: [String]
        if let object = environment.objectValue {
            keys = object.map(\.0)
        } else {
            // The list form: ["NAME=value", ...].
            keys = try #require(environment.arrayValue).compactMap { $0.stringValue?.split(separator: "=").first.map(String.init) }
        }
        #expect(!keys.isEmpty)
        for key in keys { #expect(names.contains(key), "\(key) is not a setting the server reads") }
    }

    @Test func composeValuesParseAsSettings() throws {
        let compose = try Self.compose()
        let object = try #require(compose.at("services", "gatehouse", "environment")?.objectValue)
        var environment: [String: String] = [:]
        for (key, value) in object {
            switch value {
            case .string(let text):
                // `${NAME:-}` is empty unless the operator sets it.
                environment[key] = text.hasPrefix("${") ? "" : text
            case .int(let number): environment[key] = String(number)
            case .bool(let flag): environment[key] = String(flag)
            default: environment[key] = ""
            }
        }
        let settings = try Settings.parse(arguments: [], environment: environment)
        #expect(settings.port == 1337)
        #expect(settings.host == "0.0.0.0")
        #expect(settings.databaseURL != nil)
    }

    @Test func dockerfile() throws {
        let text = try String(contentsOfFile: PackagePaths.root + "/Dockerfile", encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let stages = lines.filter { $0.uppercased().hasPrefix("FROM ") }
        #expect(stages.count >= 2, "multi-stage")
        #expect(lines.contains { $0.hasPrefix("COPY --from=") })
        // The runtime stage is the last one.
        let runtime = text.components(separatedBy: "\nFROM ").last ?? ""
        for package in ["libpq5", "libsodium23", "libmicrohttpd12", "libcurl4", "libssl3"] {
            #expect(runtime.contains(package), "\(package) in the runtime stage")
        }
        #expect(runtime.contains("EXPOSE 1337"))
        #expect(runtime.contains("gatehouse"))
    }

    /// The runtime stage's `ENV` lines set settings the server reads, to values it accepts.
    @Test func dockerfileEnvironmentIsSettings() throws {
        let text = try String(contentsOfFile: PackagePaths.root + "/Dockerfile", encoding: .utf8)
        let runtime = text.components(separatedBy: "\nFROM ").last ?? ""
        var environment: [String: String] = [:]
        for line in runtime.split(separator: "\n") where line.hasPrefix("ENV ") {
            for pair in line.dropFirst(4).split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                try #require(parts.count == 2, "ENV \(pair): the NAME=value form")
                environment[parts[0]] = parts[1]
            }
        }
        let names = Set(Settings.specs.map(\.environment))
        for key in environment.keys { #expect(names.contains(key), "\(key) is not a setting the server reads") }
        let settings = try Settings.parse(arguments: [], environment: environment)
        #expect(settings.host == "0.0.0.0" && settings.port == 1337)
    }
}
