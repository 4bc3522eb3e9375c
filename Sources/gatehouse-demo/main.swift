// gatehouse-demo: the flow of a mobile app, on the command line, built on GatehouseClient.
// The session is kept in a file between runs, as an app keeps it between launches.
import Foundation
import GatehouseClient

let usage = """
    usage: gatehouse-demo [--server URL] [--app-id ID] [--session-dir DIR] [COMMAND]

    commands:
      register USERNAME PASSWORD [EMAIL]   create an account and log in
      login USERNAME|EMAIL PASSWORD        log in (asks for the authenticator app's code if the account has one)
      guest                                log in as this installation's guest (anonymous user)
      link PROVIDER ID-TOKEN               link a provider to your account (apple, google or a
                                           configured OpenID Connect provider) with its ID token
      unlink PROVIDER                      unlink a provider from your account
      whoami                               ask the server who is logged in
      token [AUDIENCE]                     get an access token for one of your services and print its claims
      logout                               log out
      forgot EMAIL                         mail a password reset link
      reset USERNAME TOKEN NEW-PASSWORD    set a new password with a reset link's username and token
      verify                               mail a verification link to your email address
      verify USERNAME TOKEN                verify an email address with a link's username and token
      email NEW-EMAIL                      change your email address
      passwd                               change your password (asks for the current and the new one)
      devices                              list your signed-in devices (* marks this one)
      devices revoke ID                    sign out one device
      devices revoke-others                sign out every other device
      delete                               delete your account (asks to confirm, and for the password)
      totp-enroll                          set up an authenticator app: prints its otpauth:// URI, asks for
                                           its code, prints the recovery codes
      totp-disable                         turn the authenticator app off (needs a log-in made with a code)
      profile                              show your display name, photo and the app's own fields
      profile name DISPLAY-NAME            set your display name
      profile photo URL                    set your photo's address (https)
      profile clear name|photo             remove your display name or photo
      profile set FIELD VALUE              set one of the app's own fields: VALUE is JSON ("text", 3, true,
                                           ["a"], {"k": 1}; null clears it), other text is taken as text
      (none)                               an interactive prompt

    The server defaults to $GATEHOUSE_SERVER or http://127.0.0.1:1337/graphql; the session
    directory to $GATEHOUSE_DEMO_DIR or the SDK's default for the server; the issuer an
    authenticator app shows to $GATEHOUSE_APP_NAME or Gatehouse.
    """

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

func welcome(_ user: User) -> String {
    "Welcome \(user.displayName ?? user.email ?? user.username ?? user.objectId)"
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

/// Prints `prompt` and reads a line; `nil` at the end of input.
func ask(_ prompt: String) -> String? {
    print(prompt, terminator: "")
    fflush(nil)  // all streams: the prompt shows before reading
    return readLine(strippingNewline: true)
}

/// As ``ask(_:)``, without echoing what is typed when standard input is a terminal.
func askSecret(_ prompt: String) -> String? {
    guard isatty(STDIN_FILENO) == 1 else { return ask(prompt) }
    var saved = termios()
    guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return ask(prompt) }
    var silent = saved
    silent.c_lflag &= ~tcflag_t(ECHO)
    tcsetattr(STDIN_FILENO, TCSANOW, &silent)
    defer {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        print("")  // the newline the person typed was not echoed
    }
    return ask(prompt)
}

/// The signed-in user, or `nil` after saying "Not logged in.".
func signedInUser() -> User? {
    if let user = auth.currentUser { return user }
    print("Not logged in.")
    return nil
}

/// The provider named `name` with `token`: `apple` and `google` by name, any other name as a
/// configured OpenID Connect provider.
func provider(_ name: String, token: String) -> AuthProvider {
    switch name {
    case "apple": .apple(idToken: token, nonce: nil)
    case "google": .google(idToken: token)
    default: .oidc(provider: name, idToken: token)
    }
}

/// Logs in; asks for the authenticator app's code when the account has a second factor.
func logIn(_ username: String, _ password: String) async throws(GatehouseError) -> User {
    do {
        return try await auth.logIn(username: username, password: password)
    } catch .secondFactorRequired {
        guard let code = ask("Code from your authenticator app (or a recovery code): ") else { throw .secondFactorRequired }
        return try await auth.logIn(username: username, password: password, totpCode: code.trimmingCharacters(in: .whitespaces))
    }
}

/// Sets up an authenticator app: shows the `otpauth://` URI (what a QR code would hold), asks
/// for the app's code and prints the recovery codes; returns whether it did.
func enrollTOTP(_ user: User) async throws(GatehouseError) -> Bool {
    let secret = GatehouseAuth.newTOTPSecret()
    let issuer = ProcessInfo.processInfo.environment["GATEHOUSE_APP_NAME"] ?? "Gatehouse"
    print("Add this to your authenticator app (scan it as a QR code, or type the secret):")
    print(GatehouseAuth.totpURI(secret: secret, issuer: issuer, username: user.username ?? user.objectId))
    print("Secret: \(secret)")
    guard let code = ask("Code the app shows: ")?.trimmingCharacters(in: .whitespaces) else { return false }
    let codes: [String]
    do {
        codes = try await auth.enrollTOTP(secret: secret, code: code)
    } catch .recentLoginRequired {
        print(describe(.recentLoginRequired))
        guard let password = askSecret("Current password: ") else { return false }
        codes = try await auth.enrollTOTP(secret: secret, code: code, currentPassword: password)
    }
    print("Authenticator app set up. Recovery codes (each works once in place of a code; keep them safe, they are not shown again):")
    for code in codes { print("  \(code)") }
    return true
}

/// Turns the authenticator app off; asks for the password when the log-in is old. Returns whether it did.
func disableTOTP() async throws(GatehouseError) -> Bool {
    do {
        try await auth.disableTOTP()
    } catch .recentLoginRequired {
        let factors = try await auth.sessions().first(where: \.isCurrent)?.factors ?? []
        guard factors.contains("totp") || factors.contains("passkey") else {
            print("Turning it off needs a log-in made with a code: log out, then log in with your authenticator app's code.")
            return false
        }
        print(describe(.recentLoginRequired))
        guard let password = askSecret("Current password: ") else { return false }
        try await auth.disableTOTP(currentPassword: password)
    }
    print("Authenticator app turned off.")
    return true
}

/// Sends the password reset mail.
func forgot(_ email: String) async throws(GatehouseError) {
    try await auth.sendPasswordReset(email: email)
    print("If an account uses \(email), a reset link is on its way.")
}

/// Sets a new password with a reset link's username and token.
func reset(username: String, token: String, newPassword: String) async throws(GatehouseError) {
    try await auth.confirmPasswordReset(username: username, token: token, newPassword: newPassword)
    print("Password changed. Log in with the new one.")
}

/// Sends the verification mail to the signed-in user's address.
func sendVerification(_ user: User) async throws(GatehouseError) {
    try await auth.sendEmailVerification()
    print("A verification link is on its way to \(user.email ?? "your email address").")
}

/// Verifies an email address with a link's username and token.
func verify(username: String, token: String) async throws(GatehouseError) {
    try await auth.verifyEmail(username: username, token: token)
    print("Email address verified.")
}

/// Changes the email; asks for the current password only when the server wants a recent log-in.
func changeEmail(_ email: String) async throws(GatehouseError) {
    let user: User
    do {
        user = try await auth.updateEmail(email)
    } catch .recentLoginRequired {
        print(describe(.recentLoginRequired))
        guard let password = askSecret("Current password: ") else { return }
        user = try await auth.updateEmail(email, currentPassword: password)
    }
    print("Email changed to \(user.email ?? email) (not verified yet).")
}

/// Asks for the current password and the new one twice, and changes it; returns whether it did.
func changePassword() async throws(GatehouseError) -> Bool {
    guard let current = askSecret("Current password (Enter if you logged in just now): "),
        let new = askSecret("New password: "), let again = askSecret("New password again: ")
    else { return false }
    guard new == again else {
        print("The new passwords differ; nothing changed.")
        return false
    }
    try await auth.updatePassword(new, currentPassword: current.isEmpty ? nil : current)
    print("Password changed. Your other devices were signed out.")
    return true
}

/// Asks to confirm, then for the password, and deletes the account; returns whether it did.
func deleteAccount(_ user: User) async throws(GatehouseError) -> Bool {
    guard ask("Delete the account \(user.username ?? user.objectId) and everything in it? Type yes to confirm: ") == "yes" else {
        print("Not deleted.")
        return false
    }
    guard let password = askSecret("Password: ") else { return false }
    try await auth.deleteAccount(currentPassword: password.isEmpty ? nil : password)
    print("Account deleted.")
    return true
}

/// Prints the profile: the display name, the photo, and every field the app declares (the server
/// says which), each value as JSON.
func showProfile(_ user: User) async throws(GatehouseError) {
    print("Display name: \(user.displayName ?? "(not set)")")
    print("Photo: \(user.photoURL?.absoluteString ?? "(not set)")")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    for name in try await auth.userFieldNames() {
        let value = user.fields[name].flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        print("\(name): \(value ?? "(not set)")")
    }
}

/// One `profile` command: `rest` is what follows the word. Returns the exit status.
func profile(_ rest: [String]) async throws(GatehouseError) -> Int32 {
    guard signedInUser() != nil else { return 1 }
    let user: User
    switch (rest.first, rest.count) {
    case (nil, _):
        guard let current = try await auth.refreshCurrentUser() else {
            print("Not logged in.")
            return 1
        }
        try await showProfile(current)
        return 0
    case ("name", 2): user = try await auth.updateProfile(displayName: rest[1])
    case ("photo", 2):
        guard let url = URL(string: rest[1]) else {
            FileHandle.standardError.write(Data("Not a URL: \(rest[1])\n".utf8))
            return 1
        }
        user = try await auth.updateProfile(photoURL: url)
    case ("clear", 2) where rest[1] == "name": user = try await auth.clearProfile([.displayName])
    case ("clear", 2) where rest[1] == "photo": user = try await auth.clearProfile([.photoURL])
    case ("set", 3):
        let value = (try? JSONDecoder().decode(JSONValue.self, from: Data(rest[2].utf8))) ?? .string(rest[2])
        user = try await auth.update(fields: [rest[1]: value])
    default:
        FileHandle.standardError.write(Data("\(usage)\n".utf8))
        return 2
    }
    print("Profile saved.")
    try await showProfile(user)
    return 0
}

/// Lists the signed-in devices, numbered from 1, and returns them in that order.
func listDevices() async throws(GatehouseError) -> [Session] {
    let sessions = try await auth.sessions()
    let time = DateFormatter()
    time.locale = Locale(identifier: "en_US_POSIX")
    time.timeZone = TimeZone(identifier: "UTC")
    time.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
    for (number, session) in sessions.enumerated() {
        let app = session.userAgent ?? "unknown app"
        print("\(session.isCurrent ? "*" : " ") \(number + 1)) \(session.objectId)  last used \(time.string(from: session.lastUsedAt))  "
            + "\(app)\(session.isCurrent ? "  (this device)" : "")")
    }
    return sessions
}

/// Signs out one device.
func revoke(_ session: Session) async throws(GatehouseError) {
    try await auth.revokeSession(session)
    print(session.isCurrent ? "Signed out this device." : "Signed out device \(session.objectId).")
}

/// Signs out every other device.
func revokeOthers() async throws(GatehouseError) {
    let count = try await auth.revokeOtherSessions()
    print("Signed out \(count) other device\(count == 1 ? "" : "s").")
}

/// Gets an access token and prints it with its claims: what a service reads from it once the
/// signature checks out against the server's key set.
func printAccessToken(audience: String?) async throws(GatehouseError) {
    let token = try await auth.accessToken(audience: audience)
    print("Access token for \(token.audience), valid until \(token.expiresAt):")
    print(token.token)
    var components = URLComponents(url: configuration.serverURL, resolvingAgainstBaseURL: false)
    components?.path = "/.well-known/jwks.json"
    print("Its claims (a service checks the signature with the keys at \(components?.string ?? "/.well-known/jwks.json")):")
    print(claimsText(token.token))
}

/// The claims of a compact JWT, as indented JSON with sorted keys.
func claimsText(_ token: String) -> String {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return "(not a JWT)" }
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard let data = Data(base64Encoded: base64), let claims = try? JSONSerialization.jsonObject(with: data),
        let text = try? JSONSerialization.data(withJSONObject: claims, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    else { return "(claims not readable)" }
    return String(decoding: text, as: UTF8.self)
}

/// One command; returns the exit status.
func run(_ command: String, _ rest: [String]) async -> Int32 {
    do {
        switch (command, rest.count) {
        case ("register", 2), ("register", 3):
            let user = try await auth.signUp(username: rest[0], password: rest[1], email: rest.count == 3 ? rest[2] : nil)
            print(welcome(user))
        case ("login", 2):
            print(welcome(try await logIn(rest[0], rest[1])))
        case ("guest", 0):
            let user = try await auth.logIn(with: .anonymous)
            print("Welcome guest \(user.username ?? user.objectId)")
        case ("link", 2):
            guard signedInUser() != nil else { return 1 }
            let chosen = provider(rest[0], token: rest[1])
            do {
                try await auth.link(chosen)
            } catch .recentLoginRequired {
                print(describe(.recentLoginRequired))
                guard let password = askSecret("Current password: ") else { return 1 }
                try await auth.link(chosen, currentPassword: password)
            }
            print("Linked \(rest[0]). You can log in with it now.")
        case ("unlink", 1):
            guard signedInUser() != nil else { return 1 }
            do {
                try await auth.unlink(provider: rest[0])
            } catch .recentLoginRequired {
                print(describe(.recentLoginRequired))
                guard let password = askSecret("Current password: ") else { return 1 }
                try await auth.unlink(provider: rest[0], currentPassword: password)
            }
            print("Unlinked \(rest[0]).")
        case ("whoami", 0):
            guard let user = try await auth.refreshCurrentUser() else {
                print("Not logged in.")
                return 1
            }
            print(welcome(user))
        case ("token", 0), ("token", 1):
            guard signedInUser() != nil else { return 1 }
            try await printAccessToken(audience: rest.first)
        case ("logout", 0):
            let wasSignedIn = auth.currentUser != nil
            try await auth.logOut()
            print(wasSignedIn ? "Logged out." : "Not logged in.")
        case ("forgot", 1):
            try await forgot(rest[0])
        case ("reset", 3):
            try await reset(username: rest[0], token: rest[1], newPassword: rest[2])
        case ("verify", 0):
            guard let user = signedInUser() else { return 1 }
            try await sendVerification(user)
        case ("verify", 2):
            try await verify(username: rest[0], token: rest[1])
        case ("email", 1):
            guard signedInUser() != nil else { return 1 }
            try await changeEmail(rest[0])
        case ("passwd", 0):
            guard signedInUser() != nil else { return 1 }
            return try await changePassword() ? 0 : 1
        case ("devices", 0):
            guard signedInUser() != nil else { return 1 }
            _ = try await listDevices()
        case ("devices", 2) where rest[0] == "revoke":
            guard signedInUser() != nil else { return 1 }
            guard let session = try await auth.sessions().first(where: { $0.objectId == rest[1] || $0.id == rest[1] }) else {
                FileHandle.standardError.write(Data("No signed-in device has the id \(rest[1]).\n".utf8))
                return 1
            }
            try await revoke(session)
        case ("devices", 1) where rest[0] == "revoke-others":
            guard signedInUser() != nil else { return 1 }
            try await revokeOthers()
        case ("delete", 0):
            guard let user = signedInUser() else { return 1 }
            return try await deleteAccount(user) ? 0 : 1
        case ("totp-enroll", 0):
            guard let user = signedInUser() else { return 1 }
            return try await enrollTOTP(user) ? 0 : 1
        case ("totp-disable", 0):
            guard signedInUser() != nil else { return 1 }
            return try await disableTOTP() ? 0 : 1
        case ("profile", _):
            return try await profile(rest)
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

/// The interactive prompt: a start screen with its forms, and a home screen for the account.
func interactive() async -> Int32 {
    /// Runs one action of a menu; an error is shown and the menu comes back.
    func attempt(_ action: () async throws -> Void) async {
        do { try await action() } catch { print((error as? GatehouseError).map(describe) ?? "\(error)") }
    }
    print("Gatehouse demo on \(configuration.serverURL.absoluteString)")
    if auth.currentUser != nil {
        await attempt { _ = try await auth.refreshCurrentUser() }
    }
    while true {
        if let user = auth.currentUser {
            print("""

                \(welcome(user))\(user.email != nil && user.emailVerified != true ? "\nYour email address is not verified yet." : "")
                  1) Signed-in devices
                  2) Change email
                  3) Change password
                  4) Verify email
                  5) Delete account
                  6) Log out
                  7) Quit
                """)
            guard let choice = ask("> ") else { return 0 }
            switch choice.trimmingCharacters(in: .whitespaces) {
            case "1", "devices":
                await attempt {
                    let sessions = try await listDevices()
                    guard let answer = ask("Sign out a device: its number, \"others\" for all others, or Enter for none: ") else { return }
                    if answer == "others" {
                        try await revokeOthers()
                    } else if let number = Int(answer), sessions.indices.contains(number - 1) {
                        try await revoke(sessions[number - 1])
                    } else if !answer.isEmpty {
                        print("No device \(answer).")
                    }
                }
            case "2", "email":
                guard let email = ask("New email: ") else { return 0 }
                await attempt { try await changeEmail(email) }
            case "3", "passwd":
                await attempt { _ = try await changePassword() }
            case "4", "verify":
                guard let token = ask("Token from the verification email (Enter to send a new email): ") else { return 0 }
                await attempt {
                    if token.isEmpty {
                        try await sendVerification(user)
                    } else {
                        try await verify(username: user.username ?? "", token: token)
                    }
                }
            case "5", "delete":
                await attempt { _ = try await deleteAccount(user) }
            case "6", "logout":
                await attempt { try await auth.logOut(); print("Logged out.") }
            case "7", "quit", "q": return 0
            default: print("Type a number from 1 to 7.")
            }
        } else {
            print("\n  1) Register\n  2) Log in\n  3) Forgot password\n  4) Quit")
            guard let choice = ask("> ") else { return 0 }
            switch choice.trimmingCharacters(in: .whitespaces) {
            case "1", "register":
                guard let username = ask("Username: "), let password = askSecret("Password: "), let email = ask("Email: ") else {
                    return 0
                }
                await attempt { try await auth.signUp(username: username, password: password, email: email.isEmpty ? nil : email) }
            case "2", "login":
                guard let username = ask("Username or email: "), let password = askSecret("Password: ") else { return 0 }
                await attempt { _ = try await logIn(username, password) }
            case "3", "forgot":
                guard let email = ask("Email: ") else { return 0 }
                await attempt { try await forgot(email) }
                guard let link = ask("Paste the link from the email (Enter to skip): ") else { return 0 }
                guard !link.isEmpty else { continue }
                let query = URLComponents(string: link)?.queryItems ?? []
                guard let username = query.first(where: { $0.name == "username" })?.value,
                    let token = query.first(where: { $0.name == "token" })?.value
                else {
                    print("That is not a password reset link.")
                    continue
                }
                guard let password = askSecret("New password: ") else { return 0 }
                await attempt { try await reset(username: username, token: token, newPassword: password) }
            case "4", "quit", "q": return 0
            default: print("Type 1, 2, 3 or 4.")
            }
        }
    }
}

if let command = arguments.first {
    exit(await run(command, Array(arguments.dropFirst())))
} else {
    exit(await interactive())
}
