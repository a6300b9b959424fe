import FoundationEssentials
import ReveilleBus
import ReveilleFuzzSupport
import ReveillePanel

/// The panel menu's calls as a panel host (or anyone on the bus) can send them
/// (`com.canonical.dbusmenu`, answered by `PanelMenu.answer`): a first byte choosing the
/// method, the rest the message body as GDBus reads it from the wire for that method's
/// signature. Whatever arrives is answered or refused and never traps; the answer is bounded
/// by the menu (each item at most once, at most `maximumReportedIDs` unknown ids), and a
/// click names only a button of the menu, once.
@main enum FuzzDBusMenu {
    /// The menu's methods (`PanelMenuMethod`, in its order: the seeds' first bytes choose by it) and one it does not have.
    static let methods = PanelMenuProbe.methods + [("Unknown", "s")]

    static func main() {
        FuzzTarget.main { bytes in
            guard let first = bytes.first else { return }
            let method = methods[Int(first) % methods.count]
            guard let arguments = CallArguments(serialized: UnsafeRawBufferPointer(rebasing: bytes.dropFirst()), signature: method.signature,
                                                limit: 64 * 1024) else { return }
            PanelMenuProbe.check(method.name, arguments.values)
        }
    }
}
