import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules

/// Reveille's live activity in the panel: a StatusNotifierItem with a `com.canonical.dbusmenu`
/// menu, shown while an alarm rings, counts down or is paused, gone when none does.
///
/// The rules are `PanelItemView`'s and `PanelMenu`'s; this is their shell: it exports both
/// objects, answers the hosts from the view, tells them of changes, refreshes the tooltip when a
/// countdown's text changes (as the notification's does; no timer while nothing counts down),
/// and registers with the StatusNotifierWatcher while both the item and a watcher exist. With
/// no watcher on the bus nothing is registered and nothing fails. A menu click is an event for
/// the runtime, the same as the notification's button.
@GLibActor
package final class PanelItem: AlarmFollower, AgentEventSource {
    private let gate: ExportGate
    private let bus: BusConnection
    /// What this part has to say, read by the runtime alone.
    package let outbox = AgentOutbox()
    private let logger: Logger
    /// The time and zone the countdowns are shown in, and the refresh timer.
    private let clock: any AgentClock
    /// The alarms, read-only.
    private var alarms = AlarmTable.empty
    /// The alarms that ring, count down or are paused (kept from the changes: an update reads
    /// these, not every alarm).
    private var running: Set<UUID> = []
    private var view: PanelItemView?
    private var menu = PanelMenu.empty
    private var refreshTimer: ClockTimer?
    /// The exported objects and the watch on the host, removed with the item: their
    /// handlers hold it unowned.
    private var registrations: [UInt32] = []
    private var watcherWatch: UInt32 = 0
    /// The watcher's unique name while one runs.
    private var watcher: String?
    /// The request for `busName` while the item is shown and a watcher runs.
    private var nameRequest: UInt32?
    private let busName = PanelInterfaces.itemBusName(pid: ProcessInfo.processInfo.processIdentifier)

    /// Exports the item and its menu through `gate`, for the user's own tools only: the
    /// desktop's panel host is one (an unconfined process that is no app), and what the objects
    /// show (titles, countdowns) and do (Stop, Snooze) is the user's.
    /// `shown`: the `panelItem` setting; while it is off nothing is exported or registered.
    package init(gate: ExportGate, shown: Bool = true, logger: Logger, clock: any AgentClock) throws(BusError) {
        self.gate = gate
        bus = gate.bus
        self.logger = logger
        self.clock = clock
        if shown { try export() }
    }

    /// Exports the item and its menu, and watches for a panel host.
    private func export() throws(BusError) {
        registrations = try gate.export(path: PanelInterfaces.itemPath, introspectionXML: PanelInterfaces.itemXML, audience: .user,
                         maximumArgumentBytes: PanelInterfaces.maximumCallBytes,
                         properties: { [unowned self] _, name in self.itemProperty(name) }) { call in
            // The item is its menu (ItemIsMenu), which the host opens itself. Activate and the
            // others are refused as apps' menus (libappindicator's) refuse them: KDE Plasma, which
            // calls Activate on a left click whatever ItemIsMenu says, then opens the menu.
            guard PanelItemMethod(named: call.method) == .scroll else {
                return call.fail(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                 message: "Reveille's panel item is a menu (ItemIsMenu); read it at \(PanelInterfaces.menuPath)")
            }
            call.reply()
        }
        registrations += try gate.export(path: PanelInterfaces.menuPath, introspectionXML: PanelInterfaces.menuXML, audience: .user,
                                          maximumArgumentBytes: PanelInterfaces.maximumCallBytes, answering: PanelMenuMethod.answering,
                                          properties: { _, name in Self.menuProperty(name) }) { [unowned self] call in self.handleMenu(call) }
        watcherWatch = bus.watchName(PanelInterfaces.watcherName) { [weak self] owner in self?.watcherChanged(owner) }
    }

    /// Whether the item is exported (the `panelItem` setting).
    private var isExported: Bool { !registrations.isEmpty }

    isolated deinit {
        gate.unexport(registrations)
        if watcherWatch != 0 { bus.unwatchName(watcherWatch) }
        if let refreshTimer { clock.cancel(refreshTimer) }
        if let nameRequest { bus.unownName(nameRequest) }
    }

    /// The `panelItem` setting changed: the item comes (showing what runs now) or goes.
    package func hear(_ notice: AgentNotice) {
        guard case .settingsChanged(let settings) = notice, settings.panelItem != isExported else { return }
        if settings.panelItem {
            do { try export() } catch {
                gate.unexport(registrations)
                registrations = []
                return logger.error("the panel item could not be exported (\(error)); it stays off")
            }
            update()
        } else {
            let exported = registrations
            registrations = []
            // Not exported, the view is empty: the name and the refresh timer go, what runs is kept.
            update()
            gate.unexport(exported)
            bus.unwatchName(watcherWatch)
            (watcherWatch, watcher) = (0, nil)
        }
    }

    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        self.alarms = alarms
        // A change to alarms that neither run nor ran leaves the item as it is.
        if running.follow(changes, keeping: PanelItemView.runs), isExported { update() }
    }

    /// Closes the item at once when the agent stops, rather than when its connection does.
    package func withdraw() {
        running = []
        update()
    }

    // MARK: Updates

    /// Builds the view again and tells the hosts what changed in it.
    private func update() {
        let records = isExported ? running.compactMap { alarms[$0] } : []
        let old = view
        view = PanelItemView(running: records, now: clock.now, timeZone: clock.timeZone)
        let newMenu = menu.showing(view?.menu ?? [])
        let menuChanged = newMenu != menu
        menu = newMenu
        if nameRequest != nil {
            if old?.title != view?.title { emitItemSignal("NewTitle") }
            if old?.status != view?.status { emitItemSignal("NewStatus", [.string(status)]) }
            if old?.toolTip != view?.toolTip { emitItemSignal("NewToolTip") }
            if menuChanged { emitMenuSignal("LayoutUpdated", [.uint32(menu.revision), .int32(0)]) }
        }
        reconcileRegistration()
        scheduleRefresh()
    }

    /// A timer for the next change of a shown countdown's text; none while nothing counts down.
    private func scheduleRefresh() {
        if let timer = refreshTimer { clock.cancel(timer) }
        refreshTimer = nil
        let shown = (view?.entries ?? []).compactMap { alarms[$0.id] }
        guard let wait = PanelItemView.nextRefresh(shown, now: clock.now) else { return }
        refreshTimer = clock.after(wait) { [weak self] in
            self?.refreshTimer = nil
            self?.update()
        }
    }

    private func emitItemSignal(_ name: String, _ arguments: [Variant] = []) {
        emit(path: PanelInterfaces.itemPath, interface: PanelInterfaces.itemInterface, name, arguments)
    }

    private func emitMenuSignal(_ name: String, _ arguments: [Variant]) {
        emit(path: PanelInterfaces.menuPath, interface: PanelInterfaces.menuInterface, name, arguments)
    }

    private func emit(path: String, interface: String, _ name: String, _ arguments: [Variant]) {
        do { try bus.emitSignal(path: path, interface: interface, name: name, arguments: arguments) } catch {
            logger.debug("panel item: could not emit \(name): \(error)")
        }
    }

    // MARK: Registration

    private func watcherChanged(_ owner: String?) {
        let replaced = watcher != nil && owner != nil && owner != watcher
        watcher = owner
        if owner == nil { logger.debug("panel item: no StatusNotifierWatcher on the bus; nothing to register with") }
        if replaced, let id = nameRequest {
            // A new watcher knows nothing of the item: own the name afresh and register again.
            bus.unownName(id)
            nameRequest = nil
        }
        reconcileRegistration()
    }

    /// Owns `busName` and registers it while the item is shown and a watcher runs; releases the
    /// name otherwise, which is how the watcher (and every host) learns the item went away.
    private func reconcileRegistration() {
        let wanted = view != nil && watcher != nil
        if wanted, nameRequest == nil {
            nameRequest = bus.ownName(busName, replace: false) { [weak self] event in
                guard let self else { return }
                switch event {
                case .acquired: self.registerWithWatcher()
                case .lost, .connectionClosed: self.logger.debug("panel item: \(self.busName) was not granted or was lost")
                }
            }
        } else if !wanted, let id = nameRequest {
            bus.unownName(id)
            nameRequest = nil
        }
    }

    /// Registers with the watcher that owns the name now. A watcher may take its name before its
    /// object is there (Plasma 6's kded6 module does, when it starts again): such an answer is
    /// asked again, after 0.1 s and doubling, at most `registrationTries` times.
    private func registerWithWatcher(try attempt: Int = 1) {
        guard let owner = watcher, nameRequest != nil else { return }
        bus.call(destination: PanelInterfaces.watcherName, path: PanelInterfaces.watcherPath,
                 interface: PanelInterfaces.watcherName, method: "RegisterStatusNotifierItem",
                 arguments: [.string(busName)], timeoutMilliseconds: 5000, autoStart: false) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success: self.logger.debug("panel item \(self.busName) registered")
            case .failure(let error) where Self.notReadyYet.contains(error.name) && attempt < Self.registrationTries:
                self.clock.after(0.1 * Double(1 << (attempt - 1))) { [weak self] in
                    guard let self, self.watcher == owner else { return }
                    self.registerWithWatcher(try: attempt + 1)
                }
            case .failure(let error): self.logger.notice("the panel's StatusNotifierWatcher did not register Reveille's item: \(error)")
            }
        }
    }

    /// What a watcher answers while it has its name but not yet its object.
    private static let notReadyYet: Set<String> = ["org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
                                                   "org.freedesktop.DBus.Error.UnknownInterface"]
    private static let registrationTries = 6

    // MARK: StatusNotifierItem

    private var status: String { view?.status.rawValue ?? "Passive" }

    private func itemProperty(_ name: String) -> Variant? {
        let toolTip = view?.toolTip ?? PanelItemView.ToolTip()
        return switch name {
        case "Category": .string("ApplicationStatus")
        case "Id": .string("reveille")
        case "Title": .string(view?.title ?? "Reveille")
        case "Status": .string(status)
        case "WindowId": .int32(0)
        case "IconName", "AttentionIconName": .string(NotificationContent.icon)
        case "OverlayIconName", "AttentionMovieName": .string("")
        case "IconPixmap", "OverlayIconPixmap", "AttentionIconPixmap": .array(elementType: "(iiay)", [])
        case "ToolTip": .tuple([.string(NotificationContent.icon), .array(elementType: "(iiay)", []),
                                .string(toolTip.title), .string(toolTip.text)])
        case "ItemIsMenu": .bool(true)
        case "Menu": .objectPath(PanelInterfaces.menuPath)
        default: nil
        }
    }

    // MARK: dbusmenu

    private static func menuProperty(_ name: String) -> Variant? {
        switch name {
        case "Version": .uint32(3)
        case "TextDirection": .string("ltr")
        case "Status": .string("normal")
        case "IconThemePath": .strings([])
        default: nil
        }
    }

    /// Answers the menu's methods from `menu` (`PanelMenu.answer`); a click goes to the runtime.
    private func handleMenu(_ call: MethodCall) {
        guard !call.isOversized else {
            return call.fail(name: "org.freedesktop.DBus.Error.LimitsExceeded",
                             message: "the call's arguments are \(call.argumentBytes) bytes; at most \(PanelInterfaces.maximumCallBytes) are accepted")
        }
        let answer = menu.answer(call.method, call.arguments)
        for id in answer.clicked { clicked(id) }
        switch answer.outcome {
        case .reply(let values): call.reply(values)
        case .failure(let name, let message): call.fail(name: name, message: message)
        }
    }

    /// A menu item was clicked: its button's press goes to the runtime, if the alarm still offers it.
    private func clicked(_ id: Int32) {
        guard let (alarm, role) = menu.action(for: id) else { return }
        guard let record = alarms[alarm], PanelItemView.offers(role, on: record, now: clock.now, timeZone: clock.timeZone) else {
            return logger.debug("panel item: \(role.rawValue) on \(alarm) no longer applies; ignored")
        }
        outbox.send(.buttonPressed(alarm, role))
    }
}
