@testable import ReveilleAgentRuntime
@testable import ReveilleNotifications
import Testing

/// What waits for the notification thread: bounded, the latest update of a notification wins.
@Suite("Notification queue")
struct NotificationQueueTests {
    @Test func showsWaitForTheServerButClosesAndProbesDoNot() {
        var queue = NotificationQueue()
        #expect(queue.show(ticket: 1, replacing: 0) == .queued)
        queue.close(7)
        queue.probe()
        queue.probe()
        #expect(queue.next(serverKnown: false) == .close(7))
        #expect(queue.next(serverKnown: false) == .probe)
        #expect(queue.next(serverKnown: false) == nil, "one probe, however often asked")
        #expect(queue.next(serverKnown: true) == .show(ticket: 1, replacing: 0))
        #expect(queue.isEmpty)
    }

    @Test func aNewerUpdateOfTheSameNotificationTakesTheWaitingOnesPlace() {
        var queue = NotificationQueue()
        #expect(queue.show(ticket: 1, replacing: 5) == .queued)
        #expect(queue.show(ticket: 2, replacing: 6) == .queued)
        #expect(queue.show(ticket: 3, replacing: 5) == .merged(into: 1))
        #expect(queue.show(ticket: 4, replacing: 0) == .queued)
        #expect(queue.show(ticket: 5, replacing: 0) == .queued, "new notifications are never merged")
        #expect(queue.waiting.count == 4)
    }

    @Test func pastTheBoundTheOldestWaitingShowIsDropped() {
        var queue = NotificationQueue()
        for ticket in 1...NotificationQueue.maximumShows { #expect(queue.show(ticket: ticket, replacing: 0) == .queued) }
        queue.close(9)
        #expect(queue.show(ticket: 100, replacing: 0) == .queuedDropping(1))
        #expect(queue.show(ticket: 101, replacing: 0) == .queuedDropping(2))
        #expect(queue.waiting.count == NotificationQueue.maximumShows + 1, "closes are kept")
        #expect(queue.waiting.contains(.close(9)))
    }

    @Test func aServerThatLeftTakesItsIdsWithIt() {
        var queue = NotificationQueue()
        queue.close(3)
        _ = queue.show(ticket: 1, replacing: 4)
        queue.forgetAll()
        #expect(queue.waiting == [.forgetAll, .show(ticket: 1, replacing: 0)])
    }

    @Test func stoppingDropsTheShowsStillWaiting() {
        var queue = NotificationQueue()
        _ = queue.show(ticket: 1, replacing: 0)
        queue.close(3)
        _ = queue.show(ticket: 2, replacing: 4)
        #expect(queue.removeShows() == [1, 2])
        #expect(queue.waiting == [.close(3)])
    }
}
