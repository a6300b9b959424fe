/// The agent's D-Bus names and interface, shared by the agent and its clients.
///
/// Alarms and configurations travel as JSON text in `JSONCoding`'s dialect (an
/// `AlarmRecord`, a list of them, or an `AlarmRequest`), so any D-Bus tool can use them.
package enum AgentInterface {
    package static let busName = "io.github.reveille.Reveille"
    package static let objectPath = "/io/github/reveille/Reveille"
    package static let interface = "io.github.reveille.Reveille1"
    /// D-Bus error names are this prefix plus `AlarmError.code`.
    package static let errorPrefix = "io.github.reveille.Error."

    /// The interface's signals, as introspection declares them.
    package static let signals: [BusSignal] = AgentSignal.allCases.map(\.declaration)

    /// The introspection XML, written from `AgentMethod.table` and `signals`;
    /// `desktop/io.github.reveille.Reveille1.xml` is a copy (`reveille-agent --print-interface`), checked by a test.
    package static let introspectionXML = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <!--
            io.github.reveille.Reveille1: schedule and answer alarms owned by reveille-agent.
            Alarms and configurations are JSON text. An ID argument may be any unique prefix of
            an alarm's UUID. Errors are io.github.reveille.Error.NotFound, AmbiguousID,
            InvalidState, InvalidConfiguration, MaximumLimitReached, NotAuthorized, StorageFailure.
            Every call is bounded (WireLimits: 128 KiB of arguments, a
            configuration 64 KiB); replies and AlarmsUpdated carry at most 4 MiB each.
            A connection that says Hello is an app: it sees and changes only its own alarms and
            must be authorized by the user to schedule. Other unsandboxed connections are the
            user's own tools and see everything. A Flatpak sandbox is always its app.
          -->
        \(BusInterfaceDescription(name: interface, methods: AgentMethod.table.map(\.busMethod), signals: signals).xml(indent: 2))
        </node>

        """
}

/// The agent's signals, each named once: what the service emits, what clients subscribe to,
/// and what introspection declares are read from here.
package enum AgentSignal: String, CaseIterable, Sendable {
    case alarmsUpdated = "AlarmsUpdated"
    case alarmAlerting = "AlarmAlerting"
    case alarmMissed = "AlarmMissed"
    case actionInvoked = "ActionInvoked"
    case authorizationChanged = "AuthorizationChanged"
    case settingsChanged = "SettingsChanged"

    package var name: String { rawValue }

    /// The signal as introspection declares it.
    package var declaration: BusSignal {
        switch self {
        case .alarmsUpdated:
            BusSignal(name, [.init("changed", "s"), .init("removed", "as")], comment: """
                To each subscriber whose view a change touched: the alarms it may see that
                are new or changed (a JSON array of AlarmRecord), and the ids of those that
                ended. Apply both to the list Subscribe returned to keep it current.
                """)
        case .alarmAlerting:
            BusSignal(name, [.init("alarm_id", "s")], comment: """
                To subscribers of the alarm's app (and the user's tools) when it begins to
                alert (after the AlarmsUpdated that shows it alerting).
                """)
        case .alarmMissed:
            BusSignal(name, [.init("alarm_id", "s"), .init("due", "s"), .init("reason", "s")], comment: """
                To subscribers of the alarm's app (and the user's tools) when an occurrence
                was missed: due (ISO 8601, UTC) while nothing could ring it ("late"), or rang
                to its ring limit unanswered ("unanswered").
                """)
        case .actionInvoked:
            BusSignal(name, [.init("alarm_id", "s"), .init("button", "s")], comment: """
                To subscribers of the alarm's app (and the user's tools) when one of its
                notification's buttons is pressed: stop, secondary, pause, resume, cancel.
                """)
        case .authorizationChanged:
            BusSignal(name, [.init("app_id", "s"), .init("state", "s")], comment: """
                To subscribers of that app (and the user's tools) when a decision changes.
                """)
        case .settingsChanged:
            BusSignal(name, [.init("settings", "s")], comment: """
                Every setting after a change (SetSettings), as Settings answers them; to the user's
                tools only.
                """)
        }
    }
}
