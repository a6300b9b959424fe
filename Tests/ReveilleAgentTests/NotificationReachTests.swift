import Testing
@testable import ReveilleAgent

/// Whether a server's notification is seen and answerable, from what it says of itself.
@Suite("Notification reach")
struct NotificationReachTests {
    func server(_ name: String, _ capabilities: Set<String>) -> NotificationServerProfile {
        NotificationServerProfile(name: name, version: "1", capabilities: capabilities)
    }

    @Test func noServerIsUnseen() {
        #expect(NotificationReach.of(nil) == .unseen)
    }

    @Test func buttonsMakeItAnswerable() {
        #expect(NotificationReach.of(server("gnome-shell", ["actions", "body"])) == .answerable)
    }

    @Test func noActionsOrAMenuOnlyIsSeenOnly() {
        #expect(NotificationReach.of(server("mako", ["body"])) == .seenOnly)
        // dunst reaches its buttons only through a dmenu context menu.
        #expect(NotificationReach.of(server("dunst", ["actions", "body"])) == .seenOnly)
    }
}
