// gatehouse-demo: the flow of a mobile app, on the command line, built on GatehouseClient.
// The session is kept in a file between runs, as an app keeps it between launches.
import Foundation
import GatehouseClient

let usage = """
    usage: gatehouse-demo [--server URL] [--app-id ID] [--session-dir DIR] [COMMAND]

    commands:
      register USERNAME PASSWORD [EMAIL]   create an account and log in
      login USERNAME|EMAIL PASSWORD        log in
      whoami                               ask the server who is logged in
      logout                               log out
      (none)                               an interactive prompt

    The server defaults to $GATEHOUSE_SERVER or http://127.0.0.1:1337/graphql; the session
    directory to $GATEHOUSE_DEMO_DIR or the SDK's default for the server.
    """

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

func welcome(_ user: User) -> String {
    "Welcome \(user.email ?? user.username ?? user.objectId)"
}

func describe(_ error: GatehouseError) -> String {
    error.errorDescription ?? String(describing: error)
}

// Options, then the command and its arguments.
var environment = ProcessInfo.processInfo.environment
var serverText = environment["GATEHOUSE_SERVER"] ?? "http://127.0.0.1:1337/graphql"
var appId = environment["GATEHOUSE_APP_ID"]
var sessionDirectory = environment["GATEHOUSE_DEMO_DIR"]
var arguments = Array(CommandLine.arguments.dropFirst())
while let first = arguments.first, first.hasPrefix("--") {
    arguments.removeFirst()
    if first == "--help" { print(usage); exit(0) }
    guard let value = arguments.first else { fail("\(first) needs a value\n\n\(usage)", code: 2) }
    arguments.removeFirst()
    switch first {
    case "--server": serverText = value
    case "--app-id": appId = value
    case "--session-dir": sessionDirectory = value
    default: fail("unknown option \(first)\n\n\(usage)", code: 2)
    }
}
guard let serverURL = URL(string: serverText), serverURL.scheme == "http" || serverURL.scheme == "https" else {
    fail("not an http(s) URL: \(serverText)", code: 2)
}
let configuration = GatehouseConfiguration(serverURL: serverURL, applicationId: appId)
let store = FileSessionStore(
    directory: sessionDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        ?? FileSessionStore.defaultDirectory(for: configuration.serverURL))
let auth: GatehouseAuth
do { auth = try GatehouseAuth(configuration: configuration, store: store) } catch { fail(describe(error)) }

/// One command; returns the exit status.
func run(_ command: String, _ rest: [String]) async -> Int32 {
    do {
        switch (command, rest.count) {
        case ("register", 2), ("register", 3):
            let user = try await auth.signUp(username: rest[0], password: rest[1], email: rest.count == 3 ? rest[2] : nil)
            print(welcome(user))
        case ("login", 2):
            print(welcome(try await auth.logIn(username: rest[0], password: rest[1])))
        case ("whoami", 0):
            guard let user = try await auth.refreshCurrentUser() else {
                print("Not logged in.")
                return 1
            }
            print(welcome(user))
        case ("logout", 0):
            let wasSignedIn = auth.currentUser != nil
            try await auth.logOut()
            print(wasSignedIn ? "Logged out." : "Not logged in.")
        default:
            FileHandle.standardError.write(Data("\(usage)\n".utf8))
            return 2
        }
        return 0
    } catch {
        FileHandle.standardError.write(Data((describe(error) + "\n").utf8))
        return 1
    }
}

/// The interactive prompt: a start screen, the forms, and a home screen.
func interactive() async -> Int32 {
    func ask(_ prompt: String) -> String? {
        print(prompt, terminator: "")
        fflush(nil)  // all streams: the prompt shows before reading
        return readLine(strippingNewline: true)
    }
    print("Gatehouse demo on \(configuration.serverURL.absoluteString)")
    if auth.currentUser != nil {
        do { try await auth.refreshCurrentUser() } catch {
            print(describe(error))
        }
    }
    while true {
        if let user = auth.currentUser {
            print("\n\(welcome(user))\n  1) Log out\n  2) Quit")
            guard let choice = ask("> ") else { return 0 }
            switch choice.trimmingCharacters(in: .whitespaces) {
            case "1", "logout":
                do { try await auth.logOut(); print("Logged out.") } catch { print(describe(error)) }
            case "2", "quit", "q": return 0
            default: print("Type 1 or 2.")
            }
        } else {
            print("\n  1) Register\n  2) Log in\n  3) Quit")
            guard let choice = ask("> ") else { return 0 }
            switch choice.trimmingCharacters(in: .whitespaces) {
            case "1", "register":
                guard let username = ask("Username: "), let password = ask("Password: "), let email = ask("Email: ") else {
                    return 0
                }
                do { try await auth.signUp(username: username, password: password, email: email.isEmpty ? nil : email) } catch {
                    print(describe(error))
                }
            case "2", "login":
                guard let username = ask("Username or email: "), let password = ask("Password: ") else { return 0 }
                do { try await auth.logIn(username: username, password: password) } catch { print(describe(error)) }
            case "3", "quit", "q": return 0
            default: print("Type 1, 2 or 3.")
            }
        }
    }
}

if let command = arguments.first {
    exit(await run(command, Array(arguments.dropFirst())))
} else {
    exit(await interactive())
}
