import JSON
import ServerTestSupport
import TestSupport
import Foundation
import GatehouseServer
import Postgres
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
        // Published on loopback unless GATEHOUSE_BIND says otherwise.
        #expect(gatehouse["ports"] == ["${GATEHOUSE_BIND:-127.0.0.1}:1337:1337"])
        #expect(gatehouse.at("depends_on", "postgres", "condition") == "service_healthy")
        #expect(gatehouse.at("environment", "GATEHOUSE_PORT") == "1337")
        #expect(gatehouse.at("environment", "DATABASE_URL")?.stringValue?.contains("@postgres:5432/") == true)
    }

    /// Gatehouse connects as the role the init script makes, not as the image's superuser, and
    /// the script runs when the volume is first initialised.
    @Test func composeRunsGatehouseAsItsOwnRole() throws {
        let compose = try Self.compose()
        let postgres = try #require(compose.at("services", "postgres", "environment"))
        let url = try #require(compose.at("services", "gatehouse", "environment", "DATABASE_URL")?.stringValue)
        let role = try #require(postgres["GATEHOUSE_DB_USER"]?.stringValue)
        let database = try #require(postgres["GATEHOUSE_DB_NAME"]?.stringValue)
        #expect(postgres["POSTGRES_USER"]?.stringValue != role)
        #expect(url.hasPrefix("postgresql://\(role):${GATEHOUSE_DB_PASSWORD:-gatehouse}@postgres:5432/\(database)"), "\(url)")
        #expect(postgres["GATEHOUSE_DB_PASSWORD"] == "${GATEHOUSE_DB_PASSWORD:-gatehouse}")
        let volumes = try #require(compose.at("services", "postgres", "volumes")?.arrayValue)
        #expect(volumes.contains {
            $0 == "./scripts/compose/create-gatehouse-role.sh:/docker-entrypoint-initdb.d/create-gatehouse-role.sh:ro"
        })
        // Executable: the image runs an executable script and sources any other.
        let mode = try #require(FileManager.default.attributesOfItem(atPath: PackagePaths.root + "/scripts/compose/create-gatehouse-role.sh")[.posixPermissions] as? Int)
        #expect(mode & 0o111 == 0o111)
    }

    /// The init script, run as the image runs it (psql as the superuser), makes a role that is no
    /// superuser and owns its database only, and the server migrates and serves as that role.
    @Test func theInitScriptsRoleIsNoSuperuserAndRunsTheServer() throws {
        let cluster = try TestDatabase.cluster()
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let role = "gh_role_\(suffix)", database = "gh_db_\(suffix)"
        var environment = childEnvironment()
        environment["PGHOST"] = cluster.socketDirectory
        environment["PGPORT"] = String(cluster.port)
        environment["POSTGRES_USER"] = cluster.superuser
        environment["POSTGRES_DB"] = "postgres"
        environment["GATEHOUSE_DB_USER"] = role
        environment["GATEHOUSE_DB_NAME"] = database
        environment["GATEHOUSE_DB_PASSWORD"] = "it's a pass'word"
        let script = PackagePaths.root + "/scripts/compose/create-gatehouse-role.sh"
        let result = try Child.run(executable: script, [], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")

        let connectionString = "host='\(cluster.socketDirectory)' port=\(cluster.port) dbname='\(database)' user='\(role)'"
        let connection = try Connection(connectionString)
        defer { connection.close() }
        let row = try #require(try connection.queryFirst("""
            SELECT rolsuper OR rolcreatedb OR rolcreaterole OR rolreplication OR rolbypassrls FROM pg_roles WHERE rolname = current_user
            """))
        #expect(try row.decode(Bool.self, at: 0) == false, "no superuser, no CREATEDB, CREATEROLE, REPLICATION or BYPASSRLS")
        let owner = try connection.queryFirst("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()")
        #expect(try owner?.decode(String.self, at: 0) == role)
        let publicConnect = try connection.queryFirst("SELECT has_database_privilege('public', current_database(), 'CONNECT')")
        #expect(try publicConnect?.decode(Bool.self, at: 0) == false)

        let live = try LiveServer { $0.databaseURL = connectionString }
        let signedUp = try live.graphQL(Documents.signUp, variables: Documents.credentials("composed", "larch-ridge-11"))
        #expect(try signedUp.json().at("data", "signUp", "viewer", "user", "username") == "composed", "\(signedUp.text)")
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
