import Logging
import ReveilleBus
import ReveilleLoop

/// Quiets the other media players while an alarm rings and plays them again after, as
/// `OtherPlayers` decides: the shell that reads and presses them on the bus.
///
/// No player is waited for long: each question has `answerWithin`, and the whole round
/// `roundWithin`, after which the alarm's own player takes its name whatever is still
/// unanswered (a frozen player must not keep the media keys from the alarm).
@GLibActor
package final class MusicPause {
    private let bus: BusConnection
    private let logger: Logger
    /// The players this paused (or stopped), by unique name, while the alarm rings.
    private var quieted: [String: OtherPlayers.Quieting] = [:]
    /// Whether an alarm rings: a pause answered after it stopped ringing is played again at once.
    private var ringing = false
    /// What each quieted player says of its state while the alarm rings, by owner.
    private var following: [String: UInt32] = [:]

    package static let answerWithin: Int32 = 1000
    package static let roundWithin: UInt32 = 1500

    package init(bus: BusConnection, logger: Logger) {
        self.bus = bus
        self.logger = logger
    }

    /// Pauses every other player that plays; `done` hears once all answered or `roundWithin` passed.
    package func quietOthers(ours: String, then done: @escaping @GLibActor () -> Void) {
        ringing = true
        let round = Round(done)
        _ = MainLoopSources.after(milliseconds: Self.roundWithin) { round.finish() }
        ask("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames") { [weak self] names in
            guard let self else { return round.finish() }
            let players = OtherPlayers.players(among: names.first?.array?.compactMap(\.string) ?? [], ours: ours)
            round.waiting = players.count
            if players.isEmpty { round.finish() }
            for name in players { self.quiet(name, in: round) { round.answered() } }
        } failed: { round.finish() }
    }

    /// Plays again every player this quieted; one that left meanwhile is forgotten.
    package func resume() {
        ringing = false
        for subscription in following.values { bus.unsubscribe(subscription) }
        following = [:]
        let players = quieted
        quieted = [:]
        for (owner, how) in players.sorted(by: { $0.key < $1.key }) { play(owner, after: how) }
    }

    // MARK: One player

    private func quiet(_ name: String, in round: Round, done: @escaping @GLibActor () -> Void) {
        ask("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(name)]) { [weak self] reply in
            // One owner of many names is read once.
            guard let self, let owner = reply.first?.string, round.owners.insert(owner).inserted else { return done() }
            self.ask(owner, MPRISInterfaces.path, "org.freedesktop.DBus.Properties", "GetAll", [.string(OtherPlayers.playerInterface)]) { [weak self] reply in
                guard let self, let how = OtherPlayers.quieting(reply.first?.dictionary ?? [:]) else { return done() }
                self.ask(owner, MPRISInterfaces.path, OtherPlayers.playerInterface, how.rawValue) { [weak self] _ in
                    defer { done() }
                    guard let self else { return }
                    self.logger.info("paused the media player \(name) (\(how.rawValue)) while an alarm rings")
                    if self.ringing {
                        self.quieted[owner] = how
                        self.follow(owner, name, after: how)
                    } else {
                        self.play(owner, after: how)
                    }
                } failed: { done() }
            } failed: { done() }
        } failed: { done() }
    }

    /// Hears what a quieted player says of its state while the alarm rings: one the person
    /// played or stopped meanwhile is theirs, and is left as they left it.
    private func follow(_ owner: String, _ name: String, after how: OtherPlayers.Quieting) {
        guard following[owner] == nil else { return }
        following[owner] = bus.subscribe(sender: owner, interface: "org.freedesktop.DBus.Properties", name: "PropertiesChanged",
                                         path: MPRISInterfaces.path) { [weak self] signal in
            guard let self, signal.arguments.first?.string == OtherPlayers.playerInterface,
                  let status = (signal.arguments.count > 1 ? signal.arguments[1].dictionary?["PlaybackStatus"] : nil)?.string,
                  let quieting = self.quieted[owner], OtherPlayers.personTookOver(status, after: quieting) else { return }
            self.quieted[owner] = nil
            if let subscription = self.following.removeValue(forKey: owner) { self.bus.unsubscribe(subscription) }
            self.logger.info("the media player \(name) was made \(status) during the alarm: it is left as it is after")
        }
    }

    private func play(_ owner: String, after how: OtherPlayers.Quieting) {
        bus.call(destination: owner, path: MPRISInterfaces.path, interface: OtherPlayers.playerInterface, method: "Play",
                 timeoutMilliseconds: Self.answerWithin, autoStart: false) { [logger] result in
            switch result {
            case .success: logger.info("played the media player \(owner) again after the alarm")
            case .failure(let error) where error.isServiceMissing: logger.info("the media player \(owner) paused for the alarm has gone; nothing to play again")
            case .failure(let error): logger.notice("the media player \(owner) paused for the alarm did not play again: \(error)")
            }
        }
    }

    /// A call whose failure only means "leave this player": logged, never an error of the alarm's.
    private func ask(_ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [Variant] = [],
                     _ answer: @escaping @GLibActor ([Variant]) -> Void, failed: @escaping @GLibActor () -> Void) {
        bus.call(destination: destination, path: path, interface: interface, method: method, arguments: arguments,
                 timeoutMilliseconds: Self.answerWithin, autoStart: false) { [logger] result in
            switch result {
            case .success(let values): answer(values)
            case .failure(let error):
                logger.debug("media players: \(method) to \(destination) failed: \(error)")
                failed()
            }
        }
    }

    /// One round of quieting: done once every player answered, or when its time is up.
    @GLibActor
    private final class Round {
        private var done: (@GLibActor () -> Void)?
        package var waiting = 0
        /// The players' owners read in this round.
        package var owners: Set<String> = []

        package init(_ done: @escaping @GLibActor () -> Void) { self.done = done }

        package func answered() {
            waiting -= 1
            if waiting <= 0 { finish() }
        }

        package func finish() {
            let body = done
            done = nil
            body?()
        }
    }
}
