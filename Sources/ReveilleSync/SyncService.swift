import FoundationEssentials
import Glibc
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCalendar
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleSystem
import ReveilleWords
import SystemPackage

/// Sync as the agent holds it: nothing is sent anywhere until `add`; then one `SyncFollower`
/// for the account, its password in the Secret Service, found again there when the agent
/// starts. Follows the alarms always, so a follower begun later hears every alarm at once.
@GLibActor
package final class SyncService: AlarmFollower, AgentEventSource {
    /// What this part has to say, read by the runtime alone.
    package let outbox = AgentOutbox()
    private let stateDirectory: FilePath
    private let logger: Logger
    private let interval: TimeInterval
    private let clock: any AgentClock
    private var follower: SyncFollower?
    private var table = AlarmTable.empty
    /// A problem before any round (the Secret Service, the collection).
    private var setupProblem: String?

    package init(stateDirectory: FilePath, interval: TimeInterval, logger: Logger,
         clock: any AgentClock) {
        self.clock = clock
        self.stateDirectory = stateDirectory
        self.interval = interval
        self.logger = logger
    }

    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        table = alarms
        follower?.follow(changes, in: alarms)
    }

    package func ended(_ entry: AlarmHistory.Entry) {
        follower?.ended(entry)
    }

    /// Rounds at once when the network comes back (a resume, a new connection).
    private var network: NetworkWatch?

    /// Resumes the account `sync.json` names, with its password from the Secret Service.
    package func start() {
        network = NetworkWatch { [weak self] available in
            guard available else { return }
            self?.follower?.syncNow()
        }
        let account: (url: String, user: String)
        switch SyncFollower.account(in: stateDirectory, logger: logger) {
        case .success(let named?): account = named
        case .success(nil): return
        case .failure(let failure):
            // Said in the status and once on the desktop: sync never stops unseen.
            setupProblem = "neither \(SyncFollower.accountFileName) nor \(SyncFollower.fileName) could be read (\(failure)); they were kept aside; run `reveille sync add` again to resume it"
            outbox.send(.notice(summary: L("Sync is off"),
                                    body: L("Its state (sync.json) was damaged and has been kept aside. Your alarms are kept; run “reveille sync add” again to resume syncing.")))
            return
        }
        SecretStore.lookup(url: account.url, user: account.user) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let password?): begin(url: account.url, user: account.user, password: password)
            case .success(nil):
                setupProblem = "no password for \(account.user) at \(account.url) is in the Secret Service; run `reveille sync add` again"
                logger.warning("sync: \(setupProblem!)")
            case .failure(let failure):
                setupProblem = "the Secret Service could not give the password: \(failure)"
                logger.warning("sync: \(setupProblem!)")
            }
        }
    }

    package func stop() {
        network = nil
        follower?.stop()
    }

    /// `reveille sync add`: checks the URL, keeps the password in the Secret Service, makes the
    /// collection if it is not there, and begins. Refused (nothing stored) for a bad URL.
    package func add(url: String, user: String, password: String) throws(AlarmError) {
        try Self.check(url)
        guard !user.isEmpty, !password.isEmpty else { throw .invalidConfiguration("a user name and a password are needed") }
        follower?.stop()
        follower = nil
        setupProblem = nil
        SecretStore.store(password, url: Self.collectionURL(url), user: user) { [weak self] result in
            guard let self, case .failure(let failure) = result else { return }
            // Never written elsewhere: without the Secret Service, sync lasts until the agent stops.
            setupProblem = "the password could not be kept in the Secret Service (\(failure)); sync stops when the agent does"
            logger.warning("sync: \(setupProblem!)")
        }
        SyncFollower.keep(SyncAccount(collection: Self.collectionURL(url), user: user), in: stateDirectory, logger: logger)
        begin(url: Self.collectionURL(url), user: user, password: password, create: true)
    }

    /// `reveille sync remove`: stops, forgets the account and its password; the server's
    /// collection and the alarms here are left as they are.
    package func remove() throws(AlarmError) {
        guard let follower else {
            throw .invalidState("sync is not set up; `reveille sync add URL --user NAME` sets it up")
        }
        follower.stop()
        self.follower = nil
        let account = (follower.state.collection, follower.state.user)
        try? stateDirectory.appending(SyncFollower.fileName).removeFile()
        try? stateDirectory.appending(SyncFollower.accountFileName).removeFile()
        SecretStore.clear(url: account.0, user: account.1) { [logger] result in
            if case .failure(let failure) = result { logger.warning("sync: the password could not be removed from the Secret Service: \(failure)") }
        }
    }

    package var status: SyncStatus {
        guard let follower else { return SyncStatus(configured: false, problem: setupProblem, interval: interval) }
        let state = follower.state, now = clock.now
        return SyncStatus(configured: true, url: state.collection, user: state.user, rounds: follower.rounds,
                          lastRound: follower.lastRound, problem: setupProblem ?? state.lastProblem,
                          alarms: state.alarms.count, interval: interval,
                          removalsInLastDay: state.removalsTaken.count(where: { now.timeIntervalSince($0) < SyncPlan.removalsCounted }),
                          stateKeptAside: state.keptAside, stateKeptAsideAs: state.keptAsideAs)
    }

    private func begin(url: String, user: String, password: String, create: Bool = false) {
        let collection = CalDAVCollection(url: url, user: user, password: password, http: HTTPClient())
        let follower = SyncFollower(collection: collection, user: user, outbox: outbox, stateDirectory: stateDirectory,
                                    interval: interval, logger: logger, clock: clock)
        self.follower = follower
        // Hears every alarm now, as a follower added before the start does.
        follower.follow(table.records.map { AlarmChange(id: $0.id, record: $0) }, in: table)
        guard create else { return follower.start() }
        Task { @GLibActor [weak self] in
            let made = await collection.create(displayName: L("Reveille alarms"),
                                               description: L("Alarms synced by Reveille between your computers. Not meant to be shown as a calendar: Reveille rings these itself."))
            if case .failure(let failure) = made { self?.setupProblem = "the collection could not be made: \(failure)" } else { self?.setupProblem = nil }
            follower.start()
        }
    }

    /// A collection URL sync accepts: https, or http to this machine only (a password sent in
    /// clear text crosses no network).
    package nonisolated static func check(_ url: String) throws(AlarmError) {
        let lowered = url.lowercased()
        let example = "give one like https://cloud.example.com/remote.php/dav/calendars/NAME/reveille/"
        guard !url.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw .invalidConfiguration("'\(url.prefix(200))' is not a collection URL; \(example)")
        }
        if lowered.hasPrefix("https://"), url.count > 8 { return }
        guard lowered.hasPrefix("http://") else {
            throw .invalidConfiguration("'\(url.prefix(200))' is not an https:// URL; \(example)")
        }
        let authority = lowered.dropFirst(7).prefix { $0 != "/" }
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }) + "]" : String(authority.prefix { $0 != ":" })
        guard ["localhost", "127.0.0.1", "[::1]"].contains(host) else {
            throw .invalidConfiguration("http://\(host.prefix(100)) would send the password unencrypted; use https://, or http:// to this machine only (localhost, 127.0.0.1)")
        }
    }

    /// The URL with its trailing slash: the one form it is kept and looked up in.
    package static func collectionURL(_ url: String) -> String { url.hasSuffix("/") ? url : url + "/" }
}
