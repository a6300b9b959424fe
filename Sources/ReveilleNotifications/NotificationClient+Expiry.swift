import ReveilleAgentRuntime
import ReveilleBus

extension NotificationClient {
    /// What replaces a notification that must go on a server a close would wedge
    /// (`Quirk.closeWedgesServer`): nothing to read, gone after a millisecond. Its summary is a
    /// space: libnotify refuses to send an empty one (an assertion, and nothing replaced).
    package nonisolated static var expiringAtOnce: NotificationRequest { NotificationRequest(summary: " ", body: "", icon: "", actions: [], hints: [:], timeout: 1) }

    /// Removes notification `id` by replacing it with one that expires at once: on
    /// notification-daemon 3.20 an expiry leaves the server working where a close does not.
    package func expireInstead(_ id: UInt32) {
        guard id != 0 else { return }
        show(Self.expiringAtOnce, replacing: id) { _ in }
    }
}
