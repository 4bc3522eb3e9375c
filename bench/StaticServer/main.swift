// StaticServer: a benchmark target, not a test. Serves a fixed JSON response
// through HTTPServer until SIGINT or SIGTERM.
//
//     StaticServer [port] [workerThreads]     (defaults: 8080, 2)
import Glibc
import HTTPServer

let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8080 : 8080
let workers = arguments.count > 2 ? Int(arguments[2]) ?? 2 : 2

// Block the stop signals in every thread (libmicrohttpd's threads inherit the
// mask) so that sigwait below receives them.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &signals, nil)

let server = HTTPServer(
    configuration: .init(host: "127.0.0.1", port: port, workerThreads: workers, maxConnections: 10_000),
    handler: StaticHandler())
do {
    try server.start()
} catch {
    print("StaticServer: \(error)")
    exit(1)
}
print("StaticServer listening on 127.0.0.1:\(server.boundPort ?? port) with \(workers) workers")
fflush(nil)

var received: Int32 = 0
sigwait(&signals, &received)
server.stop(deadline: .now + .seconds(2))
print("StaticServer stopped")
