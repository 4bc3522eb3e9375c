import Foundation

/// Starts `arguments[0]` (a path) with `posix_spawn`: standard input from /dev/null, standard
/// output and error on the descriptors given, an empty signal mask and default handling of
/// SIGINT, SIGTERM and SIGPIPE (a test process may block or ignore them). The caller reaps the
/// child with `waitpid`. (Foundation's Process, with several children started from parallel
/// tests, was seen never noticing an exit.)
public func spawnChild(_ arguments: [String], environment: [String: String]? = nil, output: Int32, errors: Int32) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, output, 1)
    posix_spawn_file_actions_adddup2(&actions, errors, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argv = arguments.map { strdup($0) } + [nil]
    let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
    guard result == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO, userInfo: [NSFilePathErrorKey: arguments[0]])
    }
    return pid
}
