/// The built-in list of the contract's "Common passwords": the 120,000 most common passwords
/// of SecLists' `10-million-password-list-top-1000000.txt` (MIT licence), lower-cased and
/// without repeats, kept as text in `CommonPasswords/` (its README says how it was made) and
/// compiled in by the EmbedText build plugin.
///
/// Matching is case-insensitive: the list is lower case, and `Password` or `QWERTY` are as easy
/// to guess as their lower-case forms, so a password is looked up lower-cased.
enum CommonPasswords {
    /// The list as a set, built on first use (120,000 short strings, most stored inline: a few
    /// megabytes).
    static let entries = Set(CommonPasswordList.text.split(separator: "\n").map { String($0) })

    static func contains(_ password: String) -> Bool {
        entries.contains(password.lowercased())
    }
}
