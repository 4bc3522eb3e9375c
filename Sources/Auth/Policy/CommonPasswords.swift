/// The built-in list of the contract's "Common passwords": SecLists' 10,000 most common
/// passwords (`Passwords/Common-Credentials/10k-most-common.txt`, MIT licence), kept as text in
/// `CommonPasswords/` and compiled in by the EmbedText build plugin.
///
/// Matching is case-insensitive: the list is lower case, and `Password` or `QWERTY` are as easy
/// to guess as their lower-case forms, so a password is looked up lower-cased.
enum CommonPasswords {
    /// The list as a set, built on first use (about 10,000 short strings, most stored inline).
    static let entries = Set(CommonPasswordList.text.split(separator: "\n").map { String($0) })

    static func contains(_ password: String) -> Bool {
        entries.contains(password.lowercased())
    }
}
