import Foundation
import Testing

/// The agent's runtime stays the module that makes no system call (NIOCore beside NIOPosix):
/// it imports no C module and no Glibc, stays small enough to read, and no adapter holds the
/// runtime (each sends `AgentEvents`).
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

    static let adapters = ["ReveilleNotifications", "ReveilleSound", "ReveilleSync", "ReveillePanel", "ReveilleAlertWindow",
                           "ReveilleWakeUp", "ReveilleMedia"]

    @Test func itImportsNoCModuleNorGlibcAndStaysUnderFourThousandLines() throws {
        let files = try Self.files(of: "ReveilleAgentRuntime")
        #expect(files.count > 10, "the runtime's files are read")
        let imports = Set(files.flatMap { $0.text.split(separator: "\n").filter { $0.hasPrefix("import ") }.map { String($0.dropFirst(7)) } })
        #expect(imports.filter { $0.hasPrefix("C") || ["Glibc", "Dispatch", "Foundation"].contains($0) }.sorted() == [],
                "imports: \(imports.sorted())")
        let lines = files.reduce(0) { $0 + $1.text.split(separator: "\n", omittingEmptySubsequences: false).count }
        #expect(lines <= 4_000, "\(lines) lines")
    }

    @Test func noAdapterHoldsTheRuntime() throws {
        for adapter in Self.adapters {
            let files = try Self.files(of: adapter)
            #expect(!files.isEmpty, "\(adapter)'s files are read")
            for file in files {
                let mentions = file.text.split(separator: "\n").filter { line in
                    !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                        && line.replacing("ReveilleAgentRuntime", with: "").contains("AgentRuntime")
                }
                #expect(mentions.isEmpty, "\(adapter)/\(file.path) names the runtime: \(mentions)")
            }
        }
    }
}
