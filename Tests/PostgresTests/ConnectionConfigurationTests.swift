import Foundation
import Postgres
import ServerTestSupport
import TestSupport
import Testing

/// What a ``ConnectionConfiguration`` gives every connection: libpq's TCP settings unless the
/// connection string has its own, and run-time parameters.
@Suite struct ConnectionConfigurationTests {
    let database: TestDatabase

    init() throws { database = try TestDatabase.create() }

    /// The TCP settings libpq holds for `connection` (`PQconninfo`), in ``ConnectionConfiguration/tcpDefaults`` order.
    static func tcpSettings(_ connection: Connection) -> [String?] {
        ConnectionConfiguration.tcpDefaults.map { connection.connectionOption($0.0) }
    }

    @Test func aConnectionStringWithoutTCPSettingsGetsTheDefaults() throws {
        let connection = try database.connect()
        defer { connection.close() }
        #expect(Self.tcpSettings(connection) == ["10", "5", "3", "30000"])
        #expect(connection.connectionOption("connect_timeout") == "5")
        #expect(connection.connectionOption("no_such_option") == nil)
    }

    @Test func aConnectionStringsOwnTCPSettingsWin() throws {
        let conninfo = try Connection(database.connectionString + " tcp_user_timeout=1234 keepalives_count=9")
        defer { conninfo.close() }
        #expect(Self.tcpSettings(conninfo) == ["10", "5", "9", "1234"])

        // The same as a URL, built from the options the first connection used.
        let host = try #require(conninfo.connectionOption("host")?.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let port = try #require(conninfo.connectionOption("port"))
        let user = try #require(conninfo.connectionOption("user"))
        let url = try Connection(
            "postgresql:///\(database.name)?host=\(host)&port=\(port)&user=\(user)&keepalives_idle=60&tcp_user_timeout=0")
        defer { url.close() }
        #expect(Self.tcpSettings(url) == ["60", "5", "3", "0"])
        #expect(try url.queryFirst("SELECT current_database()")?.decode(String.self, at: 0) == database.name)
    }

    /// Over TCP, libpq applies them to the socket (the test cluster listens on a Unix socket
    /// only: a relay carries the connection).
    @Test func theTCPSettingsReachTheSocket() throws {
        let probe = try database.connect()
        let host = try #require(probe.connectionOption("host")), port = try #require(probe.connectionOption("port"))
        let user = try #require(probe.connectionOption("user"))
        probe.close()
        let relay = try TCPRelay(to: "\(host)/.s.PGSQL.\(port)")
        let connection = try Connection("host=127.0.0.1 port=\(relay.port) dbname=\(database.name) user=\(user) keepalives_count=4")
        defer { connection.close() }
        #expect(try connection.queryFirst("SELECT current_database()")?.decode(String.self, at: 0) == database.name)
        func option(_ level: Int32, _ name: Int32) -> Int32 {
            var value: Int32 = -1
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(connection.socketDescriptor, level, name, &value, &length) == 0 ? value : -1
        }
        let tcp = Int32(IPPROTO_TCP)
        #expect(option(SOL_SOCKET, SO_KEEPALIVE) == 1)
        #expect([option(tcp, TCP_KEEPIDLE), option(tcp, TCP_KEEPINTVL), option(tcp, TCP_KEEPCNT)] == [10, 5, 4])
        #expect(option(tcp, TCP_USER_TIMEOUT) == 30000)
    }

    @Test func runtimeParametersAreSetOnEveryConnection() throws {
        var configuration = ConnectionConfiguration(database.connectionString, statementTimeoutMilliseconds: 1234)
        configuration.runtimeParameters = ["app.flag": "off", "application_name": "ghtest"]
        let pool = Pool(configuration: PoolConfiguration(connection: configuration, size: 2, checkoutTimeoutSeconds: 5))
        defer { pool.close() }
        // Two connections at once: both were set up.
        try pool.withConnection { first in
            try pool.withConnection { second in
                for c in [first, second] {
                    let row = try #require(try c.queryFirst(
                        "SELECT current_setting('app.flag', true), current_setting('application_name'), current_setting('statement_timeout')"))
                    #expect(try row.decode(String.self, at: 0) == "off")
                    #expect(try row.decode(String.self, at: 1) == "ghtest")
                    #expect(try row.decode(String.self, at: 2) == "1234ms")
                }
            }
        }
    }

    @Test func anUnknownRuntimeParameterFailsTheConnect() throws {
        var configuration = ConnectionConfiguration(database.connectionString)
        configuration.runtimeParameters = ["no_such_parameter": "1"]
        let error = try #require(throws: PostgresError.self) { _ = try Connection(configuration: configuration) }
        #expect(error.sqlState == "42704", "\(error)")
    }
}

/// Relays one TCP connection on 127.0.0.1 (port picked) to a Unix-domain socket, until either
/// side closes.
final class TCPRelay: Sendable {
    let port: Int

    init(to socketPath: String) throws {
        let listener = try LoopbackListener()
        port = listener.port
        Thread {
            let client = accept(listener.fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(server) }
            var unix = sockaddr_un()
            unix.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &unix.sun_path) { path in
                for (index, byte) in socketPath.utf8.prefix(path.count - 1).enumerated() { path[index] = byte }
            }
            let connected = withUnsafePointer(to: &unix) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else { return }
            var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
            var buffer = [UInt8](repeating: 0, count: 65536)
            while poll(&descriptors, 2, -1) > 0 {
                for (from, to) in [(0, server), (1, client)] where descriptors[from].revents != 0 {
                    let count = read(descriptors[from].fd, &buffer, buffer.count)
                    guard count > 0, write(to, buffer, count) == count else { return }
                }
            }
        }.start()
    }
}
