import Postgres

/// Gatehouse's schema, as versioned migrations compiled into the binary.
///
/// Run them at start-up with `Migrator(migrations: AuthMigrations.all).migrate(pool)`.
/// Never edit an applied migration: add a new one.
public enum AuthMigrations {
    /// All migrations, in version order.
    public static let all: [Migration] = [
        initialSchema, changeNotifications, logInLimits, accounts, identities, totp, passkeys, notificationSwitch,
        passkeyUserVerification, signInNotices, sealedMailLinks, profiles, signingKeys, webhooks,
        oauthProvider, operators, auditLog, webhookWakeups, importedUserIds, searchCreationOrder, passwordHashKinds,
        auditForms, emailPrefixKeys, auditSeals,
    ]

    /// Notification channels (LISTEN/NOTIFY) that tell instances to drop cached sessions.
    public enum Channel {
        /// Payload: the hex SHA-256 digest of a session token that was deleted or changed.
        public static let sessions = "gatehouse_sessions"
        /// Payload: the object id of a user that was changed or deleted.
        public static let users = "gatehouse_users"
        /// No payload: a message was added to the mail outbox.
        public static let mail = "gatehouse_mail"
        /// No payload: an access-token signing key was added, changed or removed.
        public static let signingKeys = "gatehouse_keys"
        /// No payload: an event was added to the webhook outbox.
        public static let webhooks = "gatehouse_webhooks"
    }

    /// The custom run-time parameter that, set to `off` on a connection, keeps the change triggers
    /// from calling `pg_notify` for that connection's writes: an instance polling instead of
    /// listening (engines without `LISTEN/NOTIFY`) sets it on every connection it opens. Unset
    /// (or any other value), they notify.
    public static let notifySetting = "gatehouse.notify"

    /// Constraint (unique index) names the domain maps unique violations (SQLSTATE 23505) from.
    public enum Constraint {
        /// Usernames are unique ignoring case.
        public static let usernameUnique = "users_username_lower_key"
        /// E-mail addresses are unique ignoring case.
        public static let emailUnique = "users_email_lower_key"
        /// Users' object ids.
        public static let userPrimaryKey = "users_pkey"
        /// Session token digests.
        public static let sessionTokenDigestUnique = "sessions_token_digest_key"
        /// Sessions' object ids.
        public static let sessionPrimaryKey = "sessions_pkey"
        /// A provider's user id belongs to one user.
        public static let identityPrimaryKey = "user_identities_pkey"
        /// A WebAuthn credential id is registered once.
        public static let passkeyCredentialIdUnique = "passkeys_credential_id_key"
    }

    /// Migration 1: users and sessions. No column holds a raw token or password: sessions keep the
    /// SHA-256 digest of their token, users a PHC-format password hash.
    static let initialSchema = Migration(
        version: 1, name: "users and sessions",
        sql: """
            CREATE TABLE users (
                object_id text PRIMARY KEY
                    CONSTRAINT users_object_id_format CHECK (object_id ~ '^[A-Za-z0-9]{10}$'),
                username text NOT NULL
                    CONSTRAINT users_username_not_empty CHECK (username <> ''),
                email text,
                -- A PHC string ($argon2id$v=19$...) or an imported modular-crypt hash ($2b$...).
                password_hash text NOT NULL
                    CONSTRAINT users_password_hash_format CHECK (password_hash LIKE '$%'),
                email_verified boolean NOT NULL DEFAULT false,
                auth_data jsonb,
                acl jsonb NOT NULL,
                failed_login_count integer NOT NULL DEFAULT 0
                    CONSTRAINT users_failed_login_count_nonnegative CHECK (failed_login_count >= 0),
                lockout_until timestamptz,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL
            );
            CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username));
            CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));

            CREATE TABLE sessions (
                object_id text PRIMARY KEY
                    CONSTRAINT sessions_object_id_format CHECK (object_id ~ '^[A-Za-z0-9]{10}$'),
                -- SHA-256 of the session token; the token itself is never stored.
                token_digest bytea NOT NULL
                    CONSTRAINT sessions_token_digest_length CHECK (octet_length(token_digest) = 32),
                user_id text NOT NULL REFERENCES users (object_id) ON DELETE CASCADE,
                installation_id text,
                created_with jsonb NOT NULL,
                expires_at timestamptz NOT NULL,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL,
                CONSTRAINT sessions_token_digest_key UNIQUE (token_digest)
            );
            -- Serves lookups by user_id alone (its leading column), by (user_id, installation_id),
            -- and the ON DELETE CASCADE from users.
            CREATE INDEX sessions_user_id_installation_id_idx ON sessions (user_id, installation_id);
            CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
            """)

    /// Migration 2: triggers that announce session deletions and changes and user changes
    /// (delivered at commit), so every instance's session cache drops what changed.
    static let changeNotifications = Migration(
        version: 2, name: "change notifications for session caches",
        sql: """
            CREATE FUNCTION gatehouse_notify_session_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('gatehouse_sessions', encode(OLD.token_digest, 'hex'));
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER sessions_notify_change AFTER UPDATE OR DELETE ON sessions
                FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_session_change();

            CREATE FUNCTION gatehouse_notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('gatehouse_users', OLD.object_id);
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER users_notify_change
                AFTER UPDATE OF username, email, email_verified, acl, auth_data, password_hash, updated_at OR DELETE ON users
                FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_user_change();
            """)

    /// Migration 3: the per-account log-in counts, shared by all instances, and the installations
    /// that had a session of a user (the owner's exemption from the log-in limits).
    static let logInLimits = Migration(
        version: 3, name: "log-in limits per account and network; known installations",
        sql: """
            -- logIn attempts per account and client network (an IPv4 address, an IPv6 /64) in fixed
            -- windows ending at expires_at; written with synchronous_commit off (see UserStore), so it
            -- reaches the standbys without a commit waiting for them. No foreign key: its check would
            -- lock the user's row, a write of its own.
            CREATE TABLE login_attempts (
                user_id text NOT NULL,
                expires_at timestamptz NOT NULL,
                network text NOT NULL,
                attempts integer NOT NULL,
                PRIMARY KEY (user_id, expires_at, network)
            );
            CREATE INDEX login_attempts_expires_at_idx ON login_attempts (expires_at);

            -- The installations (SHA-256 of X-Parse-Installation-Id; the id itself is not kept) that
            -- had a session of a user, and when the latest such session ended or will end.
            CREATE TABLE known_installations (
                user_id text NOT NULL REFERENCES users (object_id) ON DELETE CASCADE,
                installation_digest bytea NOT NULL
                    CONSTRAINT known_installations_digest_length CHECK (octet_length(installation_digest) = 32),
                session_ends_at timestamptz NOT NULL,
                PRIMARY KEY (user_id, installation_digest)
            );
            CREATE INDEX known_installations_session_ends_at_idx ON known_installations (session_ends_at);
            INSERT INTO known_installations (user_id, installation_digest, session_ends_at)
            SELECT user_id, sha256(convert_to(installation_id, 'UTF8')), max(expires_at)
            FROM sessions WHERE installation_id IS NOT NULL GROUP BY 1, 2;
            """)

    /// Migration 4: the account lifecycle. Session columns for the devices list and idle expiry,
    /// reset and verification tokens (SHA-256 digests only), and the mail outbox.
    ///
    /// The sessions that exist take their last change as their last use, set in batches after the
    /// columns are added (the `ALTER TABLE` changes the catalog only), and `last_used_at` is then
    /// indexed concurrently: `sessions` keeps taking writes while its rows are read.
    static let accounts = Migration(
        version: 4, name: "account tokens, mail outbox, session use",
        steps: [
            .transaction("""
            -- When the token was last used (written at most once per five minutes per session) and
            -- the User-Agent that created it (cut to 256 characters). The default serves instances
            -- of the previous version during a rolling upgrade, which insert sessions without it.
            ALTER TABLE sessions ADD COLUMN last_used_at timestamptz NOT NULL DEFAULT now(), ADD COLUMN user_agent text;
            -- Touching last_used_at changes nothing a cache holds: announce only real changes.
            DROP TRIGGER sessions_notify_change ON sessions;
            CREATE TRIGGER sessions_notify_change AFTER UPDATE OF token_digest, user_id, expires_at OR DELETE ON sessions
                FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_session_change();

            -- Password reset and email verification tokens: the SHA-256 digest of the token from
            -- the link, never the token. A verification token proves one address (email).
            CREATE TABLE account_tokens (
                token_digest bytea PRIMARY KEY
                    CONSTRAINT account_tokens_digest_length CHECK (octet_length(token_digest) = 32),
                user_id text NOT NULL REFERENCES users (object_id) ON DELETE CASCADE,
                kind text NOT NULL CONSTRAINT account_tokens_kind CHECK (kind IN ('reset_password', 'verify_email')),
                email text,
                expires_at timestamptz NOT NULL,
                created_at timestamptz NOT NULL
            );
            -- A new reset token replaces the user's previous one.
            CREATE UNIQUE INDEX account_tokens_one_reset_per_user ON account_tokens (user_id) WHERE kind = 'reset_password';
            CREATE INDEX account_tokens_user_id_idx ON account_tokens (user_id, kind);
            CREATE INDEX account_tokens_expires_at_idx ON account_tokens (expires_at);

            -- The transactional outbox: a message is written in the transaction of the change
            -- that causes it and delivered by any instance's sender. `link` (with its token) is
            -- kept only until the message is sent or given up. user_id has no foreign key: the
            -- "account deleted" notice outlives its user.
            CREATE TABLE mail_outbox (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                kind text NOT NULL,
                user_id text,
                recipient text NOT NULL,
                username text NOT NULL,
                language text NOT NULL,
                link text,
                message_id text NOT NULL,
                created_at timestamptz NOT NULL,
                state text NOT NULL DEFAULT 'pending'
                    CONSTRAINT mail_outbox_state CHECK (state IN ('pending', 'sent', 'failed')),
                attempts integer NOT NULL DEFAULT 0,
                next_attempt_at timestamptz NOT NULL,
                sent_at timestamptz,
                last_error text
            );
            -- Requests for mail per address (SHA-256 of the lower-cased address) and kind, known
            -- addresses or not: the hourly limit per address counts them, and an unknown address
            -- costs the same write as a known one (no enumeration by timing).
            CREATE TABLE mail_requests (
                address_digest bytea NOT NULL,
                kind text NOT NULL,
                created_at timestamptz NOT NULL
            );
            CREATE INDEX mail_requests_address_idx ON mail_requests (address_digest, kind, created_at);
            CREATE INDEX mail_requests_created_at_idx ON mail_requests (created_at);
            CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at, id) WHERE state = 'pending';
            CREATE INDEX mail_outbox_user_id_idx ON mail_outbox (user_id) WHERE state = 'pending';
            CREATE INDEX mail_outbox_created_at_idx ON mail_outbox (created_at);

            CREATE FUNCTION gatehouse_notify_mail() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('gatehouse_mail', '');
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER mail_outbox_notify AFTER INSERT ON mail_outbox
                FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_mail();
            """),
            // 10,000 sessions at a time in the order of their primary key. A session that instances
            // of the previous version insert meanwhile takes its time of insertion (the default),
            // and one past the batches' key its last change: the same moment.
            .batches("""
                WITH batch AS (
                    SELECT object_id FROM sessions WHERE object_id > coalesce($1, '') ORDER BY object_id LIMIT 10000
                ), backfilled AS (
                    UPDATE sessions s SET last_used_at = s.updated_at FROM batch WHERE s.object_id = batch.object_id
                )
                SELECT max(object_id) FROM batch
                """),
            .concurrentIndex(name: "sessions_last_used_at_idx", on: "sessions (last_used_at)"),
        ])

    /// Migration 5: third-party log-in. A user's linked provider ids live in a table of their
    /// own rather than in `users.auth_data`: "which user has this provider id" is then a primary
    /// key lookup, and two concurrent sign-ins or links of one id meet at that key. Users made by
    /// a provider have no password (NULL: no hash, which a log-in with a password treats as a
    /// wrong password after the same work).
    static let identities = Migration(
        version: 5, name: "linked provider ids; users without a password",
        sql: """
            ALTER TABLE users ALTER COLUMN password_hash DROP NOT NULL;
            -- Only the provider's user id: tokens are never stored.
            CREATE TABLE user_identities (
                provider text NOT NULL,
                provider_user_id text NOT NULL,
                user_id text NOT NULL REFERENCES users (object_id) ON DELETE CASCADE,
                created_at timestamptz NOT NULL,
                CONSTRAINT user_identities_pkey PRIMARY KEY (provider, provider_user_id)
            );
            -- One id per provider and user; serves User.authData and the cascade.
            CREATE UNIQUE INDEX user_identities_user_id_provider_key ON user_identities (user_id, provider);
            """)

    /// Migration 6: TOTP second factors. The secret is sealed with a key kept outside the
    /// database (`SecretBox`), so a dump gives no second factor away. `last_step` is the newest
    /// time step whose code was accepted: a code is taken by `UPDATE … WHERE last_step < step`,
    /// so a code works once and, of concurrent log-ins with one code, exactly one wins. Recovery
    /// codes are kept only as digests and used up by deleting their row.
    static let totp = Migration(
        version: 6, name: "totp second factors and recovery codes",
        sql: """
            CREATE TABLE user_totp (
                user_id text PRIMARY KEY REFERENCES users (object_id) ON DELETE CASCADE,
                -- SecretBox: nonce, ciphertext and tag of the raw secret.
                sealed_secret bytea NOT NULL,
                last_step bigint NOT NULL,
                created_at timestamptz NOT NULL
            );
            CREATE TABLE user_recovery_codes (
                user_id text NOT NULL REFERENCES user_totp (user_id) ON DELETE CASCADE,
                -- SHA-256 of the user id, a colon and the code.
                code_digest bytea NOT NULL,
                CONSTRAINT user_recovery_codes_pkey PRIMARY KEY (user_id, code_digest)
            );
            """)

    /// Migration 7: passkeys (WebAuthn credentials) and the challenges given out for their
    /// ceremonies. A passkey keeps its COSE public key as registered and its signature counter;
    /// `disabled_at` is set when the counter suggests a cloned authenticator. A challenge is kept
    /// only as its SHA-256 digest and is used once: taking it is a conditional DELETE, so two
    /// concurrent ceremonies with one challenge cannot both succeed.
    static let passkeys = Migration(
        version: 7, name: "passkeys and WebAuthn challenges",
        sql: """
            CREATE TABLE passkeys (
                object_id text PRIMARY KEY,
                credential_id bytea NOT NULL,
                user_id text NOT NULL REFERENCES users (object_id) ON DELETE CASCADE,
                public_key bytea NOT NULL,
                sign_count bigint NOT NULL DEFAULT 0,
                name text NOT NULL,
                created_at timestamptz NOT NULL,
                last_used_at timestamptz,
                disabled_at timestamptz,
                CONSTRAINT passkeys_credential_id_key UNIQUE (credential_id)
            );
            CREATE INDEX passkeys_user_id_idx ON passkeys (user_id);
            CREATE TABLE webauthn_challenges (
                digest bytea PRIMARY KEY,
                -- NULL: a log-in challenge that names no user (discoverable credentials, unknown names).
                user_id text REFERENCES users (object_id) ON DELETE CASCADE,
                purpose text NOT NULL CHECK (purpose IN ('registration', 'authentication')),
                expires_at timestamptz NOT NULL
            );
            CREATE INDEX webauthn_challenges_expires_at_idx ON webauthn_challenges (expires_at);
            """)

    /// Migration 8: the change triggers notify through `gatehouse_notify`, which does nothing when
    /// the writing connection set ``notifySetting`` to `off`, so writes succeed on an engine
    /// without `pg_notify`.
    static let notificationSwitch = Migration(
        version: 8, name: "change notifications can be switched off per connection",
        sql: """
            CREATE FUNCTION gatehouse_notify(channel text, payload text) RETURNS void LANGUAGE plpgsql AS $$
            BEGIN
                IF current_setting('gatehouse.notify', true) IS DISTINCT FROM 'off' THEN
                    PERFORM pg_notify(channel, payload);
                END IF;
            END
            $$;
            CREATE OR REPLACE FUNCTION gatehouse_notify_session_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM gatehouse_notify('gatehouse_sessions', encode(OLD.token_digest, 'hex'));
                RETURN NULL;
            END
            $$;
            CREATE OR REPLACE FUNCTION gatehouse_notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM gatehouse_notify('gatehouse_users', OLD.object_id);
                RETURN NULL;
            END
            $$;
            CREATE OR REPLACE FUNCTION gatehouse_notify_mail() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM gatehouse_notify('gatehouse_mail', '');
                RETURN NULL;
            END
            $$;
            """)

    /// Migration 9: whether a passkey's registration verified its user (the UV flag: a PIN or
    /// biometrics, not only a touch). Only such a passkey is a second factor of its user; one that
    /// proves possession alone is a way to log in but leaves the user without a second factor.
    /// Rows that exist when it runs count as verifying (their flag is unknown): the stricter reading.
    static let passkeyUserVerification = Migration(
        version: 9, name: "passkeys record whether their registration verified the user",
        sql: """
            ALTER TABLE passkeys ADD COLUMN user_verified boolean NOT NULL DEFAULT true;
            """)

    /// Migration 10: what a sign-in notice lists (a provider linked, replaced or unlinked; what a
    /// reset removed), as a JSON array of `Mail.SignInChange` stored values; NULL for the other
    /// kinds. Senders of earlier versions ignore the column and give up the new kinds as unknown.
    static let signInNotices = Migration(
        version: 10, name: "sign-in changes listed by outbox messages",
        sql: """
            ALTER TABLE mail_outbox ADD COLUMN sign_in_changes jsonb;
            """)

    /// Migration 11: the outbox keeps a message's link sealed (`SecretBox`, under a key derived
    /// from `GATEHOUSE_SECRET_KEY`) instead of in plain text, so that a database read (a dump, a
    /// replica, a support console) hands out no live reset or verification link. Beside it: the
    /// digest of the link's token (what `account_tokens` holds, to tell whether the link was
    /// used) and when the link stops working (what the mail says about it).
    ///
    /// Links written in plain text before are not sealed but dropped: migrations are SQL and never
    /// see the key, and a token that sat readable in the database (and in its backups and WAL)
    /// should not stay usable anyway. Their tokens are deleted and their messages given up with a
    /// `last_error` saying why; the user asks for a new link. The `link` column goes, so that an
    /// instance of an earlier version still running during an upgrade fails to write or send a
    /// link mail rather than storing a readable token or sending a message without its link.
    static let sealedMailLinks = Migration(
        version: 11, name: "mail links sealed in the outbox",
        sql: """
            DELETE FROM account_tokens t USING mail_outbox m
            WHERE m.link IS NOT NULL
              AND t.token_digest = sha256(convert_to(split_part(split_part(m.link, 'token=', 2), '&', 1), 'UTF8'));
            UPDATE mail_outbox SET state = 'failed', link = NULL,
                last_error = 'link dropped on upgrade: it was stored unsealed; ask for a new one'
            WHERE link IS NOT NULL;
            ALTER TABLE mail_outbox DROP COLUMN link,
                -- SecretBox: nonce, ciphertext and tag of the link; NULL once the message is sent or given up.
                ADD COLUMN sealed_link bytea,
                -- SHA-256 of the link's token, as in account_tokens.
                ADD COLUMN token_digest bytea,
                ADD COLUMN link_expires_at timestamptz;
            """)

    /// Migration 12: profiles. The built-in `displayName` and `photoURL`, and the values of the
    /// fields the app declares (`GATEHOUSE_USER_FIELDS`) as one JSON object per user, keyed by field
    /// name: a field removed from the declarations keeps its values (they come back with it), and
    /// adding or removing one needs no migration. The change trigger names the new columns, so a
    /// profile change reaches every instance's session cache whatever else the statement sets.
    static let profiles = Migration(
        version: 12, name: "display name, photo URL and declared user fields",
        sql: """
            ALTER TABLE users ADD COLUMN display_name text, ADD COLUMN photo_url text,
                ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}';
            -- NOT VALID: every existing row holds the default, and validating would read the
            -- whole table under the ALTER's lock. New and changed rows are checked.
            ALTER TABLE users ADD CONSTRAINT users_custom_fields_object CHECK (jsonb_typeof(custom_fields) = 'object') NOT VALID;
            DROP TRIGGER users_notify_change ON users;
            CREATE TRIGGER users_notify_change
                AFTER UPDATE OF username, email, email_verified, acl, auth_data, password_hash, updated_at,
                    display_name, photo_url, custom_fields OR DELETE ON users
                FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_user_change();
            """)

    /// Migration 13: the keys that sign access tokens, shared by every instance. The private key
    /// is sealed (`SecretBox`, under a key derived from `GATEHOUSE_SECRET_KEY`), so a database read
    /// gives no key away. `generation` numbers the keys: two instances replacing the same key at
    /// once both insert the next number, and the unique index lets one of them in. When a key is
    /// published and signs follows from `created_at` and `signs_from` (`SigningKeySchedule`).
    /// Every change is announced on `gatehouse_keys`, so instances reload their keys at once.
    static let signingKeys = Migration(
        version: 13, name: "access token signing keys",
        sql: """
            CREATE TABLE signing_keys (
                kid text PRIMARY KEY,
                generation bigint NOT NULL CONSTRAINT signing_keys_generation_key UNIQUE,
                algorithm text NOT NULL CONSTRAINT signing_keys_algorithm CHECK (algorithm IN ('ES256', 'RS256')),
                -- SecretBox: nonce, ciphertext and tag of the private key's DER encoding.
                sealed_private_key bytea NOT NULL,
                created_at timestamptz NOT NULL,
                signs_from timestamptz NOT NULL
            );
            CREATE FUNCTION gatehouse_notify_signing_keys() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM gatehouse_notify('gatehouse_keys', '');
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER signing_keys_notify AFTER INSERT OR UPDATE OR DELETE ON signing_keys
                FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_signing_keys();
            """)

    /// Migration 14: the webhook outbox and the leases of both outboxes. An event is written once
    /// per endpoint that takes it (`EventLog`), in the transaction of its change, with its body;
    /// `event_id` is the delivery's `webhook-id` (shared by the endpoints of one event), `endpoint`
    /// the endpoint's URL (never its secret). A user's rows for one endpoint are delivered in `id`
    /// order. `leased_by` names the sender holding a row (an id per process and start): it renews
    /// the lease (`next_attempt_at`) while it works on the row, so a row held by a process that
    /// died is due again within the short lease; mail gets the same column.
    static let webhooks = Migration(
        version: 14, name: "webhook outbox; renewed leases of both outboxes",
        sql: """
            CREATE TABLE webhook_outbox (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                event_id text NOT NULL,
                endpoint text NOT NULL,
                user_id text NOT NULL,
                type text NOT NULL,
                body text NOT NULL,
                created_at timestamptz NOT NULL,
                state text NOT NULL DEFAULT 'pending'
                    CONSTRAINT webhook_outbox_state CHECK (state IN ('pending', 'sent', 'failed')),
                attempts integer NOT NULL DEFAULT 0,
                next_attempt_at timestamptz NOT NULL,
                leased_by text,
                sent_at timestamptz,
                last_error text
            );
            CREATE INDEX webhook_outbox_due_idx ON webhook_outbox (next_attempt_at, id) WHERE state = 'pending';
            CREATE INDEX webhook_outbox_order_idx ON webhook_outbox (endpoint, user_id, id) WHERE state = 'pending';
            CREATE INDEX webhook_outbox_created_at_idx ON webhook_outbox (created_at);
            CREATE FUNCTION gatehouse_notify_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM gatehouse_notify('gatehouse_webhooks', '');
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER webhook_outbox_notify AFTER INSERT ON webhook_outbox
                FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_notify_webhooks();
            ALTER TABLE mail_outbox ADD COLUMN leased_by text;
            """)

    /// Migration 15: the OAuth 2.1 / OpenID Connect provider. Registered clients keep only their
    /// secret's SHA-256 digest; codes and refresh tokens are stored as digests too. A grant (what
    /// one approval made: the codes and refresh tokens of one chain) belongs to the session it was
    /// approved from and is deleted with it, in the same statement (ON DELETE CASCADE): a log-out,
    /// a revoke, a password change or reset, the account's deletion or the session's expiry ends
    /// the grants made from that session. Consents are the user's, per client, and outlive sessions.
    static let oauthProvider = Migration(
        version: 15, name: "oauth clients, grants, codes, refresh tokens and consents",
        sql: """
            CREATE TABLE oauth_clients (
                client_id text PRIMARY KEY,
                -- SHA-256 of the client secret; NULL: a public client (token_endpoint_auth_method none).
                secret_digest bytea,
                redirect_uris jsonb NOT NULL CONSTRAINT oauth_clients_redirect_uris_array CHECK (jsonb_typeof(redirect_uris) = 'array'),
                name text NOT NULL,
                created_at timestamptz NOT NULL
            );
            CREATE TABLE oauth_grants (
                grant_id text PRIMARY KEY,
                client_id text NOT NULL,
                user_id text NOT NULL REFERENCES users (object_id) ON DELETE CASCADE,
                session_id text NOT NULL REFERENCES sessions (object_id) ON DELETE CASCADE,
                -- Space-separated, as OAuth writes them.
                scopes text NOT NULL,
                resource text,
                created_at timestamptz NOT NULL
            );
            CREATE INDEX oauth_grants_session_id_idx ON oauth_grants (session_id);
            CREATE INDEX oauth_grants_user_id_client_id_idx ON oauth_grants (user_id, client_id);
            CREATE TABLE oauth_codes (
                -- SHA-256 of the code; the code itself is never stored.
                code_digest bytea PRIMARY KEY,
                grant_id text NOT NULL REFERENCES oauth_grants (grant_id) ON DELETE CASCADE,
                redirect_uri text NOT NULL,
                code_challenge text NOT NULL,
                nonce text,
                expires_at timestamptz NOT NULL,
                used_at timestamptz
            );
            CREATE INDEX oauth_codes_grant_id_idx ON oauth_codes (grant_id);
            CREATE INDEX oauth_codes_expires_at_idx ON oauth_codes (expires_at);
            CREATE TABLE oauth_refresh_tokens (
                -- SHA-256 of the token; the token itself is never stored.
                token_digest bytea PRIMARY KEY,
                grant_id text NOT NULL REFERENCES oauth_grants (grant_id) ON DELETE CASCADE,
                created_at timestamptz NOT NULL,
                -- Set when the token was exchanged for the next one: presenting it again is a reuse.
                used_at timestamptz
            );
            CREATE INDEX oauth_refresh_tokens_grant_id_idx ON oauth_refresh_tokens (grant_id);
            CREATE TABLE oauth_consents (
                user_id text NOT NULL REFERENCES users (object_id) ON DELETE CASCADE,
                client_id text NOT NULL,
                scopes text NOT NULL,
                granted_at timestamptz NOT NULL,
                PRIMARY KEY (user_id, client_id)
            );
            """)

    /// Migration 16: operators. A user an operator disabled keeps `disabled_at` (and the reason
    /// given, shown to the master keys only); the change trigger names both columns, so every
    /// instance's session cache drops the user's sessions when it changes. The indexes serve
    /// `users(where:order:)` without reading the whole table: keyset pages by creation time
    /// (`created_at, object_id`) or username (the unique `lower(username)`), case-insensitive
    /// prefixes (`text_pattern_ops`, which `LIKE 'prefix%'` can use whatever the collation),
    /// `emailVerified` with the creation order, and the rare disabled users apart. Beside them:
    /// where and from what a security notice's change was made, and the devices users sign in
    /// from (for the notice of a new one).
    ///
    /// The indexes are built concurrently, after the columns and tables: `users` and
    /// `user_identities` keep taking writes while they build.
    static let operators = Migration(
        version: 16, name: "disabled users; indexes of the users search",
        steps: [
            .transaction("""
            ALTER TABLE users ADD COLUMN disabled_at timestamptz, ADD COLUMN disabled_reason text;
            DROP TRIGGER users_notify_change ON users;
            CREATE TRIGGER users_notify_change
                AFTER UPDATE OF username, email, email_verified, acl, auth_data, password_hash, updated_at,
                    display_name, photo_url, custom_fields, disabled_at OR DELETE ON users
                FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_user_change();

            -- Security notices: the address and User-Agent of the request that made the change
            -- (`{"address", "device"}`); NULL for the other kinds.
            ALTER TABLE mail_outbox ADD COLUMN occurrence jsonb;

            -- The devices (a User-Agent and a network: an IPv4 /24 or an IPv6 /64) each user signed
            -- in from, by the SHA-256 of both, and when last: a sign-in from one not seen for 90
            -- days is told to the user, unless it is the user's first.
            CREATE TABLE user_devices (
                user_id text NOT NULL REFERENCES users (object_id) ON DELETE CASCADE,
                device_digest bytea NOT NULL CONSTRAINT user_devices_digest_length CHECK (octet_length(device_digest) = 32),
                last_seen_at timestamptz NOT NULL,
                PRIMARY KEY (user_id, device_digest)
            );
            """),
            .concurrentIndex(name: "users_created_at_idx", on: "users (created_at, object_id)"),
            .concurrentIndex(name: "users_username_prefix_idx", on: "users (lower(username) text_pattern_ops)"),
            .concurrentIndex(name: "users_email_prefix_idx", on: "users (lower(email) text_pattern_ops)"),
            .concurrentIndex(name: "users_email_verified_created_at_idx", on: "users (email_verified, created_at, object_id)"),
            .concurrentIndex(name: "users_disabled_created_at_idx", on: "users (created_at, object_id) WHERE disabled_at IS NOT NULL"),
            .concurrentIndex(name: "user_identities_provider_user_id_idx", on: "user_identities (provider, user_id)"),
        ])

    /// Migration 17: the tamper-evident audit log (replaced by migration 24). Entries were kept in 64 hash
    /// chains (a user's entries always in the chain of its id); each chain's head row holds its last
    /// sequence number and hash, and the sequence and hash of the last entry pruned (the cut). An
    /// entry's hash is SHA-256 over the previous entry's hash (or the cut's; 32 zero bytes at the
    /// start) and the entry's canonical form, `gatehouse_audit_canonical`: every field, length-prefixed
    /// (`~` for NULL), so no two entries share a form. `gatehouse_audit_append` appends entries in
    /// order, locking each chain's head row until the transaction ends.
    static let auditLog = Migration(
        version: 17, name: "tamper-evident audit log in hash chains",
        sql: """
            CREATE TABLE audit_chains (
                shard integer PRIMARY KEY,
                seq bigint NOT NULL,
                head bytea NOT NULL,
                cut_seq bigint NOT NULL,
                cut_hash bytea NOT NULL
            );
            INSERT INTO audit_chains (shard, seq, head, cut_seq, cut_hash)
                SELECT s, 0, decode(repeat('00', 32), 'hex'), 0, decode(repeat('00', 32), 'hex') FROM generate_series(0, 63) s;
            CREATE TABLE audit_log (
                shard integer NOT NULL,
                seq bigint NOT NULL,
                id text NOT NULL,
                at timestamptz NOT NULL,
                type text NOT NULL,
                actor text NOT NULL,
                user_id text,
                session_id text,
                ip text,
                user_agent text,
                data text NOT NULL,
                hash bytea NOT NULL,
                PRIMARY KEY (shard, seq)
            );
            CREATE INDEX audit_log_at_idx ON audit_log (at, shard, seq);
            CREATE INDEX audit_log_user_id_at_idx ON audit_log (user_id, at, shard, seq) WHERE user_id IS NOT NULL;
            CREATE FUNCTION gatehouse_audit_field(value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
                SELECT CASE WHEN value IS NULL THEN '~' ELSE octet_length(value)::text || ':' || value END
            $$;
            CREATE FUNCTION gatehouse_audit_canonical(
                shard integer, seq bigint, id text, at timestamptz, type text, actor text, user_id text,
                session_id text, ip text, user_agent text, data text
            ) RETURNS bytea LANGUAGE sql STABLE AS $$
                SELECT convert_to(
                    'gatehouse-audit-1' || gatehouse_audit_field(shard::text) || gatehouse_audit_field(seq::text)
                    || gatehouse_audit_field(id)
                    || gatehouse_audit_field(to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
                    || gatehouse_audit_field(type) || gatehouse_audit_field(actor) || gatehouse_audit_field(user_id)
                    || gatehouse_audit_field(session_id) || gatehouse_audit_field(ip) || gatehouse_audit_field(user_agent)
                    || gatehouse_audit_field(data),
                    'UTF8')
            $$;
            CREATE FUNCTION gatehouse_audit_append(
                shards integer[], ids text[], ats timestamptz[], types text[], actors text[], user_ids text[],
                session_ids text[], ips text[], user_agents text[], datas text[]
            ) RETURNS void LANGUAGE plpgsql AS $$
            DECLARE
                next_seq bigint;
                entry_hash bytea;
            BEGIN
                FOR i IN 1 .. coalesce(array_length(ids, 1), 0) LOOP
                    -- One statement moves the head (locking it) and hashes the entry onto the previous head.
                    UPDATE audit_chains c SET seq = c.seq + 1, head = sha256(c.head || gatehouse_audit_canonical(
                        shards[i], c.seq + 1, ids[i], ats[i], types[i], actors[i], user_ids[i], session_ids[i], ips[i],
                        user_agents[i], datas[i]))
                    WHERE c.shard = shards[i] RETURNING c.seq, c.head INTO next_seq, entry_hash;
                    INSERT INTO audit_log (shard, seq, id, at, type, actor, user_id, session_id, ip, user_agent, data, hash)
                    VALUES (shards[i], next_seq, ids[i], ats[i], types[i], actors[i], user_ids[i], session_ids[i], ips[i],
                            user_agents[i], datas[i], entry_hash);
                END LOOP;
            END
            $$;
            """)

    /// Migration 18: no trigger notifies the webhook senders of each insert. A `NOTIFY` makes its
    /// transaction's commit take a lock per database until its WAL flush, so every change that
    /// records an event committed one after another. The process that records events wakes its own
    /// sender after the commit; a process without one notifies (`EventLog`).
    ///
    /// Both outboxes are vacuumed after a fixed number of changed rows: a row goes from pending to
    /// sent within seconds, and its old version stays in the partial indexes of pending rows,
    /// which every claim and every backlog count walks, until a vacuum; the default waits for a
    /// fifth of a table that keeps a week of sent rows.
    static let webhookWakeups = Migration(
        version: 18, name: "webhook senders woken by the recording process; outboxes vacuumed often",
        sql: """
            DROP TRIGGER webhook_outbox_notify ON webhook_outbox;
            DROP FUNCTION gatehouse_notify_webhooks();
            ALTER TABLE webhook_outbox SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000,
                autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 5000);
            ALTER TABLE mail_outbox SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000,
                autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 5000);
            """)

    /// Migration 19: users imported from another service keep their ids (an app's foreign keys
    /// still match): 1 to 64 characters of `[A-Za-z0-9_-]`, which every id made here (ten letters
    /// and digits) also is. The constraint is added `NOT VALID`: the ids already stored met the
    /// stricter one, and validating would read the whole table under the ALTER's lock.
    static let importedUserIds = Migration(
        version: 19, name: "user ids of imported users",
        sql: """
            ALTER TABLE users DROP CONSTRAINT users_object_id_format,
                ADD CONSTRAINT users_object_id_format CHECK (object_id ~ '^[A-Za-z0-9_-]{1,64}$') NOT VALID;
            """)

    /// Migration 20: a provider's users and those with TOTP on, in creation order, without reading
    /// the users between them. `user_identities` and `user_totp` carry their user's creation time,
    /// indexed with the user id (after the provider), so that the users search walks a provider's
    /// users newest first and stops at its page, as it walks all users by `users_created_at_idx`.
    /// A trigger copies the time from `users` on every insert, whichever version of Gatehouse
    /// inserts; a user's creation time never changes. The column is nullable: an id linked to a
    /// missing user then fails on its foreign key, not on a NOT NULL check. `(provider, user_id)`
    /// is dropped: the new index leads with the provider and holds the user id too.
    ///
    /// The rows already there are filled 10,000 users at a time and the indexes built
    /// concurrently, so both tables take writes meanwhile; rows inserted meanwhile are filled by
    /// the trigger, which is in place before the first batch.
    static let searchCreationOrder = Migration(
        version: 20, name: "creation order of a provider's users and of users with TOTP",
        steps: [
            .transaction("""
                ALTER TABLE user_identities ADD COLUMN user_created_at timestamptz;
                ALTER TABLE user_totp ADD COLUMN user_created_at timestamptz;
                CREATE FUNCTION gatehouse_user_created_at() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    SELECT u.created_at INTO NEW.user_created_at FROM users u WHERE u.object_id = NEW.user_id;
                    RETURN NEW;
                END
                $$;
                CREATE TRIGGER user_identities_user_created_at BEFORE INSERT OR UPDATE OF user_id ON user_identities
                    FOR EACH ROW EXECUTE FUNCTION gatehouse_user_created_at();
                CREATE TRIGGER user_totp_user_created_at BEFORE INSERT OR UPDATE OF user_id ON user_totp
                    FOR EACH ROW EXECUTE FUNCTION gatehouse_user_created_at();
                """),
            .batches("""
                WITH batch AS (
                    SELECT object_id, created_at FROM users WHERE object_id > coalesce($1, '') ORDER BY object_id LIMIT 10000
                ), filled AS (
                    UPDATE user_identities i SET user_created_at = batch.created_at FROM batch WHERE i.user_id = batch.object_id
                )
                SELECT max(object_id) FROM batch
                """),
            .batches("""
                WITH batch AS (
                    SELECT user_id FROM user_totp WHERE user_id > coalesce($1, '') ORDER BY user_id LIMIT 10000
                ), filled AS (
                    UPDATE user_totp t SET user_created_at = u.created_at FROM batch, users u
                    WHERE t.user_id = batch.user_id AND u.object_id = batch.user_id
                )
                SELECT max(user_id) FROM batch
                """),
            .concurrentIndex(name: "user_identities_provider_user_created_at_idx", on: "user_identities (provider, user_created_at, user_id)"),
            .concurrentIndex(name: "user_totp_user_created_at_idx", on: "user_totp (user_created_at, user_id)"),
            .transaction("DROP INDEX user_identities_provider_user_id_idx;"),
        ])

    /// Migration 21: the kinds of password hash stored, read from an index instead of the whole
    /// users table (``UserStore``'s `hashKindPrefixes`, at start-up and hourly).
    /// `gatehouse_password_hash_kind` cuts a hash's kind with the pattern of
    /// `HashKinds.sqlPrefixPattern` (a test checks they agree; a new pattern needs a migration that
    /// replaces the function and rebuilds the index): NULL for no hash and for formats not verified
    /// here. Most users share one kind, which btree deduplication keeps small.
    static let passwordHashKinds = Migration(
        version: 21, name: "index of the kinds of stored password hash",
        steps: [
            .transaction(#"""
                CREATE FUNCTION gatehouse_password_hash_kind(password_hash text) RETURNS text LANGUAGE sql IMMUTABLE AS $kind$
                    SELECT substring(password_hash FROM '^(\$argon2id\$[^$]*\$[^$]*|\$2[aby]\$[0-9][0-9]|\$firebase-scrypt\$[^$]*)')
                $kind$;
                """#),
            .concurrentIndex(name: "users_password_hash_kind_idx", on: "users (gatehouse_password_hash_kind(password_hash))"),
        ])

    /// Migration 22: audit entries hashed over canonical forms the server writes.
    /// `gatehouse_audit_append_forms` takes, beside each entry's fields, its canonical form after
    /// the sequence number; under the head's lock it adds the tag,
    /// the chain and the sequence number and hashes onto the head. Building each whole form from
    /// the fields in SQL (`to_char` and eleven length-prefixed fields in one expression, set up
    /// again by every execution) was most of an append's cost. The actor, address and user agent,
    /// the same for every entry of a call, are single parameters. The hashes are the same as
    /// `gatehouse_audit_append`'s, which stays: the server still calls it for a time outside the
    /// years 1 to 9999, and instances of the previous version call it during an upgrade.
    static let auditForms = Migration(
        version: 22, name: "audit entries hashed over the server's canonical forms",
        sql: """
            CREATE FUNCTION gatehouse_audit_append_forms(
                shards integer[], ids text[], ats timestamptz[], types text[], user_ids text[], session_ids text[],
                datas text[], forms bytea[], actor text, ip text, user_agent text
            ) RETURNS void LANGUAGE plpgsql AS $$
            DECLARE
                next_seq bigint;
                entry_hash bytea;
            BEGIN
                FOR i IN 1 .. coalesce(array_length(ids, 1), 0) LOOP
                    -- One statement moves the head (locking it) and hashes the entry onto the previous head.
                    UPDATE audit_chains c SET seq = c.seq + 1, head = sha256(c.head || convert_to(
                        'gatehouse-audit-1' || gatehouse_audit_field(c.shard::text) || gatehouse_audit_field((c.seq + 1)::text),
                        'UTF8') || forms[i])
                    WHERE c.shard = shards[i] RETURNING c.seq, c.head INTO next_seq, entry_hash;
                    INSERT INTO audit_log (shard, seq, id, at, type, actor, user_id, session_id, ip, user_agent, data, hash)
                    VALUES (shards[i], next_seq, ids[i], ats[i], types[i], actor, user_ids[i], session_ids[i], ip, user_agent,
                            datas[i], entry_hash);
                END LOOP;
            END
            $$;
            """)

    /// Migration 23: an email prefix's page in a creation order from one index. The index of
    /// lowered emails holds each user's email, creation time and object id too, so a search for a
    /// prefix sorts its matches' creation times from the index alone and reads only its page's rows
    /// (``UserSearchStore``): at 1,000,000 users a prefix of 1 % of them took 15–20 ms, walking
    /// the creation order and reading a user's row per user skipped, and now about 3 ms. (`email`
    /// is held as well: PostgreSQL reads `lower(email)` from an index only when the column itself
    /// is there.) It replaces the index of migration 16. Beside it, the disabled users in the
    /// username order: a page of them walked the username order of all users (or sorted every
    /// disabled one), 12 ms at p50 and 54 ms at p99 for 2,000 of 1,000,000.
    static let emailPrefixKeys = Migration(
        version: 23, name: "email prefixes with their users' creation times; disabled users by username",
        steps: [
            .concurrentIndex(
                name: "users_email_prefix_keys_idx", on: "users (lower(email) text_pattern_ops) INCLUDE (email, created_at, object_id)"),
            .transaction("DROP INDEX users_email_prefix_idx;"),
            .concurrentIndex(name: "users_disabled_username_idx", on: "users (lower(username)) WHERE disabled_at IS NOT NULL"),
        ])

    /// Migration 24: audit entries sealed in batches (``AuditLog``). A request inserts its entries
    /// and nothing else: no chain head is locked or updated in its transaction. Each entry's
    /// position comes from a sequence, drawn only after its transaction has an id (the `CASE`
    /// evaluates `pg_current_xact_id()` first), which is what lets the sealer know when no
    /// transaction can still commit an earlier position. The sealer (one at a time, holding
    /// `audit_head`'s row) hashes settled entries in position order onto the chain and writes each
    /// batch's hashes as a seal. The entries of migration 17's chains are copied in their chains'
    /// order, first, and sealed like any others; its tables go. Its two append functions stay,
    /// inserting into the new table, for instances of the previous version during an upgrade.
    static let auditSeals = Migration(
        version: 24, name: "audit entries sealed in batches, off the request's transaction",
        sql: """
            CREATE SEQUENCE audit_entries_pos_seq AS bigint;
            CREATE TABLE audit_entries (
                pos bigint PRIMARY KEY
                    DEFAULT CASE WHEN pg_current_xact_id() IS NULL THEN NULL ELSE nextval('audit_entries_pos_seq') END,
                id text NOT NULL,
                at timestamptz NOT NULL,
                type text NOT NULL,
                actor text NOT NULL,
                user_id text,
                session_id text,
                ip text,
                user_agent text,
                data text NOT NULL
            );
            ALTER SEQUENCE audit_entries_pos_seq OWNED BY audit_entries.pos;
            CREATE INDEX audit_entries_at_idx ON audit_entries (at, pos);
            CREATE INDEX audit_entries_user_id_at_idx ON audit_entries (user_id, at, pos) WHERE user_id IS NOT NULL;
            CREATE TABLE audit_seals (
                seq bigint PRIMARY KEY,
                last_pos bigint NOT NULL,
                hashes bytea NOT NULL,
                newest timestamptz NOT NULL
            );
            CREATE TABLE audit_head (
                only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                seq bigint NOT NULL,
                last_pos bigint NOT NULL,
                head bytea NOT NULL,
                fence_pos bigint,
                fence_xid xid8,
                cut_seq bigint NOT NULL,
                cut_pos bigint NOT NULL,
                cut_hash bytea NOT NULL
            );
            INSERT INTO audit_head (seq, last_pos, head, cut_seq, cut_pos, cut_hash)
                VALUES (0, 0, decode(repeat('00', 32), 'hex'), 0, 0, decode(repeat('00', 32), 'hex'));
            -- Appends of the previous version wait here until this commits, then fail: none is lost.
            LOCK TABLE audit_chains IN EXCLUSIVE MODE;
            INSERT INTO audit_entries (pos, id, at, type, actor, user_id, session_id, ip, user_agent, data)
                SELECT row_number() OVER (ORDER BY shard, seq), id, at, type, actor, user_id, session_id, ip, user_agent, data
                FROM audit_log;
            SELECT setval('audit_entries_pos_seq', greatest(count(*), 1), count(*) > 0) FROM audit_entries;
            DROP FUNCTION gatehouse_audit_canonical(integer, bigint, text, timestamptz, text, text, text, text, text, text, text);
            DROP FUNCTION gatehouse_audit_field(text);
            DROP TABLE audit_log, audit_chains;
            CREATE OR REPLACE FUNCTION gatehouse_audit_append_forms(
                shards integer[], ids text[], ats timestamptz[], types text[], user_ids text[], session_ids text[],
                datas text[], forms bytea[], actor text, ip text, user_agent text
            ) RETURNS void LANGUAGE sql AS $$
                INSERT INTO audit_entries (id, at, type, actor, user_id, session_id, ip, user_agent, data)
                SELECT i, a, t, actor, u, s, ip, user_agent, d
                FROM unnest(ids, ats, types, user_ids, session_ids, datas) WITH ORDINALITY AS e(i, a, t, u, s, d, n) ORDER BY n
            $$;
            CREATE OR REPLACE FUNCTION gatehouse_audit_append(
                shards integer[], ids text[], ats timestamptz[], types text[], actors text[], user_ids text[],
                session_ids text[], ips text[], user_agents text[], datas text[]
            ) RETURNS void LANGUAGE sql AS $$
                INSERT INTO audit_entries (id, at, type, actor, user_id, session_id, ip, user_agent, data)
                SELECT i, a, t, ac, u, s, ip, ua, d
                FROM unnest(ids, ats, types, actors, user_ids, session_ids, ips, user_agents, datas)
                    WITH ORDINALITY AS e(i, a, t, ac, u, s, ip, ua, d, n) ORDER BY n
            $$;
            """)
}
