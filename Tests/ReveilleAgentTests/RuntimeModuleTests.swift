import Foundation
import Testing

/// The agent's runtime stays the module that makes no system call (NIOCore beside NIOPosix):
/// it stays small enough to read. That no part holds it is `EventsOneWayTests`' (what each part stores, walked).
/// Its closure (no C module but GLib's loop, no system call) is read from the manifest by `ModuleGraphTests`.
@Suite("The runtime module")
struct RuntimeModuleTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The Swift files under `Sources/module`, by path, with their text.
    static func files(of module: String) throws -> [(path: String, text: String)] {
        let folder = sources.appendingPathComponent(module)
        let paths = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        return try paths.sorted().map { ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// What it may import is what its closure holds: `ModuleGraphTests.theRuntimesClosureHoldsNoCModuleButGLibsLoopAndNoSystemCall`.
    @Test func itStaysUnderFourThousandLines() throws {
        let files = try Self.files(of: "ReveilleAgentRuntime")
        #expect(files.count > 10, "the runtime's files are read")
        let lines = files.reduce(0) { $0 + $1.text.split(separator: "\n", omittingEmptySubsequences: false).count }
        #expect(lines <= 4_000, "\(lines) lines")
    }
}
