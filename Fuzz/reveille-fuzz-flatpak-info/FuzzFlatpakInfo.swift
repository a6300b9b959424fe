import ReveilleBus
import ReveilleFuzzSupport

/// `.flatpak-info` bytes as the agent reads a caller's sandbox marker (`FlatpakInfo.parse`):
/// any bytes give absent, an app or a refusal, and never trap.
@main enum FuzzFlatpakInfo {
    static func main() {
        FuzzTarget.main { bytes in
            if case .app(let id) = FlatpakInfo.parse(bytes) {
                precondition(!id.isEmpty && id.utf8.count <= 255 && !id.contains(".."), "an app id that is not one was accepted: \(id)")
            }
        }
    }
}
