import Auth
import Foundation
import Postgres
import ServerTestSupport
import Sodium
import Signatures
import Testing

/// Migration 11 over an outbox as earlier versions wrote it, with links in plain text: the
/// links of pending messages are dropped (the migration has no key to seal them, and a token
/// that was readable must not stay usable), their tokens voided and their messages given up;
/// everything else is left as it was.
@Suite struct SealedMailLinksMigrationTests {
    @Test func plainTextLinksAreDroppedAndTheirTokensVoided() throws {
        let pool = try TestDatabase.create().makePool(size: 2)
        try Migrator(migrations: AuthMigrations.all.filter { $0.version < 11 }).migrate(pool)
        let live = "LiveResetToken0123456789abcdefghijklmnopqrs"
        let verify = "LiveVerifyToken0123456789abcdefghijklmnopq"
        let other = "UnrelatedToken0123456789abcdefghijklmnopqrs"
        try pool.withConnection { c in
            try c.execute("""
                INSERT INTO users (object_id, username, email, password_hash, acl, created_at, updated_at)
                VALUES ('uuuuuuuuu1', 'ann', 'ann@example.com', '$argon2id$x', '{}', now(), now())
                """)
            for (token, kind) in [(live, "reset_password"), (verify, "verify_email"), (other, "verify_email")] {
                try c.execute("""
                    INSERT INTO account_tokens (token_digest, user_id, kind, email, expires_at, created_at)
                    VALUES (sha256(convert_to(\(token), 'UTF8')), 'uuuuuuuuu1', \(kind), 'ann@example.com', now() + interval '1 hour', now())
                    """)
            }
            // Two pending link mails, a sent one (its link already forgotten) and a pending notice.
            let rows: [(String, String?, String)] = [
                ("reset_password", "http://127.0.0.1:1337/reset-password?token=\(live)&username=ann", "pending"),
                ("verify_email", "http://127.0.0.1:1337/verify-email?token=\(verify)&username=ann", "pending"),
                ("verify_email", nil, "sent"),
                ("password_changed", nil, "pending"),
            ]
            for (index, (kind, link, state)) in rows.enumerated() {
                try c.execute("""
                    INSERT INTO mail_outbox (kind, user_id, recipient, username, language, link, message_id, created_at, state, next_attempt_at)
                    VALUES (\(kind), 'uuuuuuuuu1', 'ann@example.com', 'ann', 'en', \(link), \("<\(index)@localhost>"), now(), \(state), now())
                    """)
            }
        }

        let applied = try Migrator(migrations: AuthMigrations.all.filter { $0.version <= 11 }).migrate(pool)
        #expect(applied.map(\.version) == [11])
        try pool.withConnection { c in
            let states = try c.query("SELECT kind, state, last_error FROM mail_outbox ORDER BY id").map {
                "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1)) \(try $0.decode(String?.self, at: 2) ?? "-")"
            }
            let dropped = "link dropped on upgrade: it was stored unsealed; ask for a new one"
            #expect(states == [
                "reset_password failed \(dropped)", "verify_email failed \(dropped)", "verify_email sent -", "password_changed pending -",
            ])
            let tokens = try c.query("SELECT token_digest FROM account_tokens").map { try $0.decode([UInt8].self, at: 0) }
            #expect(tokens == [SHA256.digest(other)], "the dropped links' tokens are void; the other stays")
            let dump = try c.query("SELECT row_to_json(m)::text FROM mail_outbox m").map { try $0.decode(String.self, at: 0) }
            #expect(!dump.contains { $0.contains(live) || $0.contains(verify) })
            let columns = try c.query("""
                SELECT column_name::text FROM information_schema.columns WHERE table_name = 'mail_outbox' AND column_name LIKE '%link%'
                ORDER BY column_name
                """).map { try $0.decode(String.self, at: 0) }
            #expect(columns == ["link_expires_at", "sealed_link"])
        }
    }
}
