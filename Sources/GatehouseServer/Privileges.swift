import Foundation
import HTTPServer
import Postgres

/// Least privilege (docs/operations.md, "Security notes"). Started as root, Gatehouse does only
/// what needs root: it creates the `gatehouse` system account if missing, makes the embedded
/// database's data directory and hands it to that account, and opens a listening port below 1024
/// (the one thing an unprivileged process cannot). Then it gives root up for good, before the
/// embedded PostgreSQL starts, so the server and the cluster both run as the account. Started as
/// any other user, nothing changes.
enum Privileges {
    /// As root: the steps above, then the drop. Returns the settings to run with (the data
    /// directory may be relocated, see ``EmbeddedPostgres/prepareForAccount(dataDirectory:account:)``)
    /// and the listening socket opened for a port below 1024. Not root: `settings` and nil.
    static func dropRoot(_ settings: Settings) throws(GatehouseServer.StartError) -> (Settings, listenSocket: Int32?) {
        guard getuid() == 0 || geteuid() == 0 else { return (settings, nil) }
        var settings = settings
        let account: ServiceAccount
        do {
            account = try ServiceAccount.ensure()
            if settings.databaseURL == nil {
                settings.dataDirectory = try EmbeddedPostgres.prepareForAccount(
                    dataDirectory: settings.dataDirectory, account: account)
            }
        } catch {
            throw GatehouseServer.StartError("started as root: \(error.message)")
        }
        var listenSocket: Int32? = nil
        if settings.port > 0 && settings.port < 1024 {
            do { listenSocket = try HTTPServer.openListeningSocket(host: settings.host, port: settings.port) } catch {
                throw GatehouseServer.StartError("cannot listen: \(error)")
            }
        }
        try drop(to: account)
        return (settings, listenSocket)
    }

    /// Supplementary groups, group, then user (setuid last: it takes the right to change the
    /// others). As root, setgid and setuid set the real, effective and saved ids alike, so no way
    /// back to root is left; that is checked.
    private static func drop(to account: ServiceAccount) throws(GatehouseServer.StartError) {
        guard setgroups(0, nil) == 0, setgid(account.gid) == 0, setuid(account.uid) == 0 else {
            throw GatehouseServer.StartError(
                "cannot switch to the `\(ServiceAccount.name)` account: \(String(cString: strerror(errno)))")
        }
        guard getuid() == account.uid, geteuid() == account.uid, getgid() == account.gid, getegid() == account.gid,
            getgroups(0, nil) == 0, setuid(0) != 0, seteuid(0) != 0, setgid(0) != 0
        else {
            throw GatehouseServer.StartError("root could still be regained after switching to `\(ServiceAccount.name)`")
        }
    }
}
