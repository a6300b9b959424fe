import Foundation

/// A fuzz target's `main`. Built with `-sanitize=fuzzer -DFUZZING` (`make fuzz`) it hands
/// `body` to libFuzzer's driver (`LLVMFuzzerRunDriver`, so SwiftPM's own entry point stays);
/// an ordinary build replays the files and folders named on the command line through `body`:
/// a regression run of the corpus and of any input a fuzzer once found.
public enum FuzzTarget {
    nonisolated(unsafe) private static var body: ((UnsafeRawBufferPointer) -> Void)?

    public static func main(_ body: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
        #if FUZZING
        Self.body = body
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in
            FuzzTarget.body?(UnsafeRawBufferPointer(start: data, count: count))
            return 0
        })
        #else
        exit(replay(body))
        #endif
    }

    private static func replay(_ body: (UnsafeRawBufferPointer) -> Void) -> Int32 {
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("\(path): no such file or folder\n".utf8))
                return 66
            }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 } : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                data.withUnsafeBytes(body)
                count += 1
            }
        }
        print("\(count) inputs replayed")
        return 0
    }
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32
#endif
