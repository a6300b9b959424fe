import Foundation
import Glibc

/// Records the test sink's monitor with `parec` and notes, for every chunk as it arrives,
/// when it arrived and how loud it was: enough to tell when sound starts and stops.
public final class SinkRecorder: @unchecked Sendable {
    public struct Chunk: Sendable {
        public var time: Date
        /// The largest absolute 16-bit sample in the chunk.
        public var peak: Int
    }

    /// A chunk louder than this counts as audible (about −30 dBFS).
    public static let audible = 1000

    private let child: Subprocess.Child
    private let lock = NSLock()
    private var received: [Chunk] = []

    /// Starts recording `sink`'s monitor (`testsink`, the default) of the session's PulseAudio
    /// and waits for the first chunk (an idle null sink can take up to two seconds to deliver one).
    public init(session: TestSession, sink: String = "testsink") throws {
        let parec = try Subprocess.find("parec", package: "pulseaudio-utils")
        let (child, reader) = try Subprocess.startPiped(
            parec, ["-d", sink + ".monitor", "--raw", "--format=s16le", "--rate=44100", "--channels=1", "--latency-msec=10"],
            environment: session.environment, stderr: session.directory + "/parec-\(sink).log")
        self.child = child
        let thread = Thread { [weak self] in
            var buffer = [Int16](repeating: 0, count: 2048)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                let peak = buffer.prefix(count / 2).map { abs(Int($0)) }.max() ?? 0
                guard let self else { break }
                self.lock.withLock { self.received.append(Chunk(time: Date(), peak: peak)) }
            }
            close(reader)
        }
        thread.start()
        _ = try eventually(timeout: 5, "the first chunk from parec") { chunks.isEmpty ? nil : true }
    }

    deinit { stop() }

    public func stop() { child.terminate() }

    public var chunks: [Chunk] { lock.withLock { received } }

    /// When sound was first heard at or after `instant`.
    public func firstAudible(after instant: Date) -> Date? {
        chunks.first { $0.time >= instant && $0.peak >= Self.audible }?.time
    }

    /// When sound was last heard.
    public func lastAudible() -> Date? {
        chunks.last { $0.peak >= Self.audible }?.time
    }

    /// Waits until the recording reaches `instant`, so that what it says of the time before
    /// is complete.
    public func waitUntilRecorded(_ instant: Date, timeout: TimeInterval = 10) throws {
        _ = try eventually(timeout: timeout, "the sink's recording to reach \(instant)") {
            (chunks.last?.time ?? .distantPast) >= instant ? true : nil
        }
    }

    /// Whether sound was heard between the two instants.
    public func heard(from start: Date, to end: Date) -> Bool {
        chunks.contains { $0.time >= start && $0.time <= end && $0.peak >= Self.audible }
    }
}
