import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A headless Chromium (the Debian `chromium` package) in a temporary profile and its own
/// process group, driven over the DevTools protocol: real mouse clicks and typing, screenshots.
///
/// Call ``close()`` when done: it closes the browser, kills anything left in its process group,
/// reaps it and deletes the profile.
final class Chromium: @unchecked Sendable {
    let pid: pid_t
    let profile: String
    let screenshots: URL
    let name: String
    private let browser: DevTools
    private var page = ""  // the flat-mode session id of our tab
    private var pageTarget = ""  // our tab's target id

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Launches Chromium, once one of the ``BrowserSlots`` is free; screenshots go to
    /// `<package>/.build/screenshots/<name>-…png`.
    init(name: String) async throws {
        self.name = name
        let executable = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let executable else {
            throw Failure(description: "chromium is not installed: run `scripts/install-deps.sh --test` (Debian package chromium)")
        }
        await BrowserSlots.shared.take()
        screenshots = packageRoot.appendingPathComponent(".build/screenshots", isDirectory: true)
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        profile = TemporaryDirectory.make(prefix: "gh-chromium")
        let arguments = [
            executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-breakpad", "--disable-crash-reporter", "--password-store=basic", "--use-mock-keychain",
            "--window-size=1280,860", "--remote-debugging-pipe", "--user-data-dir=\(profile)", "about:blank",
        ]
        do {
            let (pid, output, input) = try Self.spawn(arguments)
            self.pid = pid
            browser = DevTools(writingTo: output, readingFrom: input)
        } catch {
            try? FileManager.default.removeItem(atPath: profile)
            await BrowserSlots.shared.give()
            throw error
        }
        do {
            let target = try await browser.call("Target.createTarget", ["url": "about:blank"])
            guard let targetId = target["targetId"] as? String else { throw Failure(description: "no target: \(target)") }
            let attached = try await browser.call("Target.attachToTarget", ["targetId": targetId, "flatten": true])
            guard let sessionId = attached["sessionId"] as? String else { throw Failure(description: "not attached: \(attached)") }
            page = sessionId
            pageTarget = targetId
            _ = try await devTools.call("Page.enable")
            _ = try await devTools.call("Runtime.enable")
            _ = try await devTools.call("Emulation.setDeviceMetricsOverride", [
                "width": 1280, "height": 860, "deviceScaleFactor": 1, "mobile": false,
            ])
            // Collects Content-Security-Policy violations of every document, from its first line.
            _ = try await devTools.call("Page.addScriptToEvaluateOnNewDocument", [
                "source": "window.__csp = []; document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
            ])
        } catch {
            close()
            throw error
        }
    }

    /// Starts Chromium with a DevTools pipe on its fds 3 (commands) and 4 (replies), stdio on
    /// /dev/null, in a new process group. Returns the pid and our two pipe ends.
    private static func spawn(_ arguments: [String]) throws -> (pid_t, Int32, Int32) {
        var commands: [Int32] = [0, 0]
        var replies: [Int32] = [0, 0]
        // Close-on-exec everywhere (Glibc's module has no pipe2); the child's dup2'd copies
        // on 3 and 4 are the only ones it keeps.
        guard pipe(&commands) == 0 else { throw Failure(description: "pipe failed") }
        guard pipe(&replies) == 0 else {
            Glibc.close(commands[0]); Glibc.close(commands[1])
            throw Failure(description: "pipe failed")
        }
        for fd in commands + replies { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, commands[0], 3)
        posix_spawn_file_actions_adddup2(&actions, replies[1], 4)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        Glibc.close(commands[0])
        Glibc.close(replies[1])
        guard status == 0 else {
            Glibc.close(commands[1]); Glibc.close(replies[0])
            throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(status)))")
        }
        return (pid, commands[1], replies[0])
    }

    /// Closes the browser: `Browser.close`, then SIGKILL to whatever is left of its process
    /// group (before reaping the leader, so the group id cannot have been reused), then reap.
    func close() {
        let closing = Task { [browser] in _ = try? await browser.call("Browser.close") }
        _ = browser.waitForEnd(seconds: 10)
        closing.cancel()
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: profile)
        Task { await BrowserSlots.shared.give() }
    }

    // MARK: Driving the page

    /// Commands to our tab.
    private var devTools: PageSession { PageSession(browser: browser, session: page) }

    private struct PageSession {
        let browser: DevTools
        let session: String
        func call(_ method: String, _ params: [String: Any] = [:]) async throws -> [String: Any] {
            try await browser.call(method, params, session: session)
        }
    }

    /// Sends `Accept-Language: value` with every request of the tab, navigations and `fetch`.
    func setAcceptLanguage(_ value: String) async throws {
        let version = try await browser.call("Browser.getVersion")
        _ = try await devTools.call("Emulation.setUserAgentOverride", [
            "userAgent": version["userAgent"] as? String ?? "Chromium", "acceptLanguage": value,
        ])
    }

    /// Runs `source` in every document the tab loads from now on, before the page's own scripts
    /// (to take a feature away from the browser, say).
    func beforeEveryPage(_ source: String) async throws {
        _ = try await devTools.call("Page.addScriptToEvaluateOnNewDocument", ["source": source])
    }

    /// Turns the pages' own scripts off, as in a browser without JavaScript (``evaluate(_:)`` still works).
    func disableScripts() async throws {
        _ = try await devTools.call("Emulation.setScriptExecutionDisabled", ["value": true])
    }

    /// Navigates and waits until the new document's `readyCondition` holds.
    func open(_ url: String, until readyCondition: String) async throws {
        _ = try await devTools.call("Page.navigate", ["url": url])
        try await waitFor("location.href === \(quoted(url)) && document.readyState === 'complete' && (\(readyCondition))")
    }

    /// Reloads and waits until the new document's `readyCondition` holds.
    func reload(until readyCondition: String) async throws {
        _ = try await evaluate("window.__beforeReload = true")
        _ = try await devTools.call("Page.reload")
        try await waitFor("!window.__beforeReload && document.readyState === 'complete' && (\(readyCondition))")
    }

    /// Opens `url` in a new tab in front of ours, as a person following a link into another tab
    /// would (ours is hidden meanwhile), waits until `readyCondition` holds there, then closes
    /// that tab and brings ours back to the front: our page sees `visibilitychange` and `focus`.
    func inAnotherTab(_ url: String, until readyCondition: String) async throws {
        let created = try await browser.call("Target.createTarget", ["url": url])
        guard let targetId = created["targetId"] as? String else { throw Failure(description: "no target: \(created)") }
        do {
            let attached = try await browser.call("Target.attachToTarget", ["targetId": targetId, "flatten": true])
            guard let session = attached["sessionId"] as? String else { throw Failure(description: "not attached: \(attached)") }
            try await waitFor(
                "location.href === \(quoted(url)) && document.readyState === 'complete' && (\(readyCondition))",
                in: PageSession(browser: browser, session: session))
        } catch {
            _ = try? await browser.call("Target.closeTarget", ["targetId": targetId])
            throw error
        }
        _ = try await browser.call("Target.closeTarget", ["targetId": targetId])
        _ = try await browser.call("Target.activateTarget", ["targetId": pageTarget])
    }

    /// Makes the tab `width` by `height` CSS pixels, as a phone (`mobile`) or a desktop window.
    func setViewport(width: Int, height: Int, mobile: Bool) async throws {
        _ = try await devTools.call("Emulation.setDeviceMetricsOverride", [
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
        ])
    }

    /// The value of a JavaScript expression (awaited if a promise), as JSON-decoded `Any`.
    func evaluate(_ expression: String) async throws -> Any? {
        try await evaluate(expression, in: devTools)
    }

    private func evaluate(_ expression: String, in devTools: PageSession) async throws -> Any? {
        let result = try await devTools.call("Runtime.evaluate", [
            "expression": "(async () => JSON.stringify(await (\(expression)) ?? null))()",
            "awaitPromise": true, "returnByValue": true,
        ])
        if let exception = result["exceptionDetails"] as? [String: Any] {
            let text = ((exception["exception"] as? [String: Any])?["description"] as? String) ?? "\(exception)"
            throw Failure(description: "JavaScript error in `\(expression)`: \(text)")
        }
        guard let json = (result["result"] as? [String: Any])?["value"] as? String else { return nil }
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        return value is NSNull ? nil : value
    }

    /// The text content of the element `selector` (trimmed), or `nil` if absent.
    func text(_ selector: String) async throws -> String? {
        try await evaluate("document.querySelector(\(quoted(selector)))?.textContent.trim()") as? String
    }

    /// Whether `selector` matches an element that is rendered (not hidden, non-zero size).
    func isVisible(_ selector: String) async throws -> Bool {
        try await evaluate(visibleExpression(selector)) as? Bool ?? false
    }

    private func visibleExpression(_ selector: String) -> String {
        "(() => { const e = document.querySelector(\(quoted(selector))); if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; })()"
    }

    /// Polls `condition` (a JavaScript expression) until it is truthy; generous timeout, then a
    /// failure screenshot and an error.
    func waitFor(_ condition: String, timeout: TimeInterval = 20) async throws {
        try await waitFor(condition, in: devTools, timeout: timeout)
    }

    private func waitFor(_ condition: String, in devTools: PageSession, timeout: TimeInterval = 20) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let value = try? await evaluate("(() => { try { return !!(\(condition)); } catch (e) { return false; } })()", in: devTools)
            if value as? Bool == true { return }
            if Date() > deadline {
                let shot = try? await screenshot("FAILED")
                throw Failure(description: "timed out waiting for `\(condition)`" + (shot.map { "; screenshot \($0.path)" } ?? ""))
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Waits until `selector` is visible.
    func waitForVisible(_ selector: String) async throws {
        try await waitFor(visibleExpression(selector))
    }

    /// A real left click (mouse events at the centre of the element's first box: a link broken
    /// over two lines has nothing of its own at the centre of both), as a person would.
    func click(_ selector: String) async throws {
        try await waitForVisible(selector)
        // A region still filling in (aria-busy) may move the element after its place is measured.
        try await waitFor("!document.querySelector('[aria-busy=\"true\"]')")
        guard let rect = try await evaluate("""
            (() => { const e = document.querySelector(\(quoted(selector))); e.scrollIntoView({block: 'center'});
              const r = e.getClientRects()[0] || e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()
            """) as? [Double], rect.count == 2
        else { throw Failure(description: "no element \(selector)") }
        let point: [String: Any] = ["x": rect[0], "y": rect[1]]
        _ = try await devTools.call("Input.dispatchMouseEvent", point.merging(["type": "mouseMoved"]) { $1 })
        _ = try await devTools.call("Input.dispatchMouseEvent",
            point.merging(["type": "mousePressed", "button": "left", "buttons": 1, "clickCount": 1]) { $1 })
        _ = try await devTools.call("Input.dispatchMouseEvent",
            point.merging(["type": "mouseReleased", "button": "left", "buttons": 0, "clickCount": 1]) { $1 })
    }

    /// Clicks into the field, selects what is there (Ctrl+A) and types `text` over it.
    func type(_ text: String, into selector: String) async throws {
        try await click(selector)
        try await waitFor("document.activeElement === document.querySelector(\(quoted(selector)))")
        let selectAll: [String: Any] = ["key": "a", "code": "KeyA", "modifiers": 2, "windowsVirtualKeyCode": 65, "commands": ["selectAll"]]
        _ = try await devTools.call("Input.dispatchKeyEvent", selectAll.merging(["type": "rawKeyDown"]) { $1 })
        _ = try await devTools.call("Input.dispatchKeyEvent", selectAll.merging(["type": "keyUp"]) { $1 })
        _ = try await devTools.call("Input.insertText", ["text": text])
    }

    /// Presses Enter in the focused element (submits a form as a person would).
    func pressEnter() async throws {
        let enter: [String: Any] = ["key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"]
        _ = try await devTools.call("Input.dispatchKeyEvent", enter.merging(["type": "keyDown"]) { $1 })
        _ = try await devTools.call("Input.dispatchKeyEvent", enter.merging(["type": "keyUp"]) { $1 })
    }

    /// Saves a PNG of the viewport, or of the element `selector` alone, as `<name>-<label>.png`
    /// and returns its URL.
    @discardableResult
    func screenshot(_ label: String, of selector: String? = nil) async throws -> URL {
        var parameters: [String: Any] = ["format": "png"]
        if let selector {
            try await waitForVisible(selector)
            guard let box = try await evaluate("""
                (() => { const e = document.querySelector(\(quoted(selector))); e.scrollIntoView({block: 'center'});
                  const r = e.getBoundingClientRect(); return [r.x + scrollX, r.y + scrollY, r.width, r.height]; })()
                """) as? [Double], box.count == 4
            else { throw Failure(description: "no element \(selector)") }
            parameters["clip"] = ["x": box[0], "y": box[1], "width": box[2], "height": box[3], "scale": 1]
        }
        let result = try await devTools.call("Page.captureScreenshot", parameters)
        guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot data")
        }
        let url = screenshots.appendingPathComponent("\(name)-\(label).png")
        try data.write(to: url)
        return url
    }

    /// Gives the tab a virtual WebAuthn authenticator (CTAP2, built in, with resident keys and
    /// user verification that always succeeds): passkey ceremonies then complete without a person.
    func addVirtualAuthenticator() async throws {
        _ = try await devTools.call("WebAuthn.enable", ["enableUI": false])
        _ = try await devTools.call("WebAuthn.addVirtualAuthenticator", [
            "options": [
                "protocol": "ctap2", "transport": "internal", "hasResidentKey": true,
                "hasUserVerification": true, "isUserVerified": true, "automaticPresenceSimulation": true,
            ] as [String: Any]
        ])
    }

    /// Lets pages of `origin` write and read the clipboard, and makes the tab count as focused
    /// (the Clipboard API works only in a focused document).
    func allowClipboard(origin: String) async throws {
        _ = try await browser.call("Browser.grantPermissions", [
            "origin": origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
        ])
        _ = try await devTools.call("Emulation.setFocusEmulationEnabled", ["enabled": true])
    }

    /// The page's Content-Security-Policy violations so far.
    func cspViolations() async throws -> [String] {
        try await evaluate("window.__csp || ['(violation log missing)']") as? [String] ?? ["(unreadable)"]
    }

    private func quoted(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text])
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}

/// At most three browsers at once across every suite: the tests run in parallel, and more
/// Chromiums than that on two cores only make each slower (a test's time limit counts its wait
/// for a slot too, so the suites' limits allow for it).
actor BrowserSlots {
    static let shared = BrowserSlots(3)
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func take() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
