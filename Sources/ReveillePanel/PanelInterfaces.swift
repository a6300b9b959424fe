import ReveilleCore
import ReveilleModel
import ReveilleRules

/// The D-Bus names of the panel protocols: KDE's StatusNotifierItem (read by KDE, xfce,
/// Cinnamon, MATE, waybar, swaybar and GNOME's AppIndicator extension) and Canonical's
/// dbusmenu, which hosts read the item's menu through.
package enum PanelInterfaces {
    package static let itemInterface = "org.kde.StatusNotifierItem"
    package static let itemPath = "/StatusNotifierItem"
    package static let menuInterface = "com.canonical.dbusmenu"
    package static let menuPath = "/MenuBar"
    package static let watcherName = "org.kde.StatusNotifierWatcher"
    package static let watcherPath = "/StatusNotifierWatcher"

    /// The name the item is registered under: the spec's `org.kde.StatusNotifierItem-PID-ID`.
    /// Released when nothing runs, which is how the watcher learns the item went away.
    package static func itemBusName(pid: Int32) -> String { "org.kde.StatusNotifierItem-\(pid)-1" }

    /// Calls larger than this are refused unread: no method of either interface needs more.
    package static let maximumCallBytes = 64 * 1024

    static let itemXML = BusInterfaceDescription.node([BusInterfaceDescription(
        name: itemInterface, methods: PanelItemMethod.methods,
        properties: [
            .init("Category", "s"), .init("Id", "s"), .init("Title", "s"), .init("Status", "s"), .init("WindowId", "i"),
            .init("IconName", "s"), .init("IconPixmap", "a(iiay)"), .init("OverlayIconName", "s"), .init("OverlayIconPixmap", "a(iiay)"),
            .init("AttentionIconName", "s"), .init("AttentionIconPixmap", "a(iiay)"), .init("AttentionMovieName", "s"),
            .init("ToolTip", "(sa(iiay)ss)"), .init("ItemIsMenu", "b"), .init("Menu", "o"),
        ],
        signals: [.init("NewTitle"), .init("NewIcon"), .init("NewAttentionIcon"), .init("NewOverlayIcon"), .init("NewToolTip"),
                  .init("NewStatus", [.init("status", "s")])],
        layout: .compact)])

    static let menuXML = BusInterfaceDescription.node([BusInterfaceDescription(
        name: menuInterface, methods: PanelMenuMethod.methods,
        properties: [.init("Version", "u"), .init("TextDirection", "s"), .init("Status", "s"), .init("IconThemePath", "as")],
        signals: [
            .init("ItemsPropertiesUpdated", [.init("updatedProps", "a(ia{sv})"), .init("removedProps", "a(ias)")]),
            .init("LayoutUpdated", [.init("revision", "u"), .init("parent", "i")]),
            .init("ItemActivationRequested", [.init("id", "i"), .init("timestamp", "u")]),
        ])])
}

/// The StatusNotifierItem's methods, one case each.
enum PanelItemMethod: BusMethodSet {
    case contextMenu, activate, secondaryActivate, scroll

    var method: BusMethod {
        switch self {
        case .contextMenu: BusMethod("ContextMenu", in: Self.position)
        case .activate: BusMethod("Activate", in: Self.position)
        case .secondaryActivate: BusMethod("SecondaryActivate", in: Self.position)
        case .scroll: BusMethod("Scroll", in: [.init("delta", "i"), .init("orientation", "s")])
        }
    }

    private static let position: [BusMethod.Argument] = [.init("x", "i"), .init("y", "i")]
}

/// dbusmenu's methods, one case each (`PanelMenu.answer` answers them; the fuzz target sends them).
package enum PanelMenuMethod: BusMethodSet {
    case getLayout, getGroupProperties, getProperty, event, eventGroup, aboutToShow, aboutToShowGroup

    package var method: BusMethod {
        switch self {
        case .getLayout:
            BusMethod("GetLayout", in: [.init("parentId", "i"), .init("recursionDepth", "i"), .init("propertyNames", "as")],
                      out: [.init("revision", "u"), .init("layout", "(ia{sv}av)")])
        case .getGroupProperties:
            BusMethod("GetGroupProperties", in: [.init("ids", "ai"), .init("propertyNames", "as")], out: [.init("properties", "a(ia{sv})")])
        case .getProperty:
            BusMethod("GetProperty", in: [.init("id", "i"), .init("name", "s")], out: [.init("value", "v")])
        case .event:
            BusMethod("Event", in: [.init("id", "i"), .init("eventId", "s"), .init("data", "v"), .init("timestamp", "u")])
        case .eventGroup:
            BusMethod("EventGroup", in: [.init("events", "a(isvu)")], out: [.init("idErrors", "ai")])
        case .aboutToShow:
            BusMethod("AboutToShow", in: [.init("id", "i")], out: [.init("needUpdate", "b")])
        case .aboutToShowGroup:
            BusMethod("AboutToShowGroup", in: [.init("ids", "ai")], out: [.init("updatesNeeded", "ai"), .init("idErrors", "ai")])
        }
    }

    /// A click (`Event`, `EventGroup`) presses an alarm's button.
    package var answersAlarm: Bool { self == .event || self == .eventGroup }
}
