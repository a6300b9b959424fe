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

    /// The introspection XML; `desktop/io.github.reveille.Reveille1.xml` is a copy, checked by a test.
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
          <interface name="io.github.reveille.Reveille1">
            <!-- An app introduces itself: its id and why it wants alarms (AlarmKit's
                 NSAlarmKitUsageDescription). Returns the identity the agent established:
                 {appID, sandboxed, source}. -->
            <method name="Hello">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="usage_description" type="s" direction="in"/>
              <arg name="identity" type="s" direction="out"/>
            </method>
            <!-- Start receiving AlarmsUpdated, AlarmAlerting, AlarmMissed, ActionInvoked and
                 AuthorizationChanged (own view only). Returns the alarms now; AlarmsUpdated then carries each
                 change to that list. -->
            <method name="Subscribe">
              <arg name="alarms" type="s" direction="out"/>
            </method>
            <!-- Starts the signals, as Subscribe does, without returning the alarms: for a
                 client that reads them with ListPage. -->
            <method name="SubscribeUpdates"/>
            <!-- Schedules an alarm. id: a UUID, or "" for a new one. configuration: an
                 AlarmRequest. options: reserved, pass {}. Returns the AlarmRecord. An app
                 not yet decided on is asked about first; the call waits for the answer.
                 A sound name that cannot be found is refused with the names that exist.
                 A relative schedule's repeats: "never", a list of weekdays (AlarmKit's), or
                 Reveille's extensions {"monthly": 1-31} (a shorter month: its last day),
                 {"yearly": {"month": 1-12, "day": D}} (February 29: the 28th in other years),
                 {"everyDays": 1-366, "from": "YYYY-MM-DD"}. -->
            <method name="Schedule">
              <arg name="id" type="s" direction="in"/>
              <arg name="configuration" type="s" direction="in"/>
              <arg name="options" type="a{sv}" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- Each returns the alarm after the change, or "null" when it has ended. -->
            <method name="Cancel">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <method name="Stop">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <method name="Countdown">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <method name="Pause">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <method name="Resume">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- One alarm, as an AlarmRecord. -->
            <method name="Get">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- All alarms, as a JSON array of AlarmRecord; refused (InvalidState) when they
                 would not fit one reply: read them with ListPage. -->
            <method name="List">
              <arg name="alarms" type="s" direction="out"/>
            </method>
            <!-- A page of the caller's alarms: those whose id sorts after `after` ("" from the
                 start), at most `limit` (0: as many as fit) and at most 4 MiB of JSON, as a JSON
                 array of AlarmRecord sorted by id; `next` is the `after` of the next page, ""
                 after the last. Stable while alarms come and go: no alarm is skipped. -->
            <method name="ListPage">
              <arg name="after" type="s" direction="in"/>
              <arg name="limit" type="u" direction="in"/>
              <arg name="alarms" type="s" direction="out"/>
              <arg name="next" type="s" direction="out"/>
            </method>
            <!-- ListPage, with WakeStatus's answer in the same reply, typed: wakes (b), lead (d),
                 and where they apply reason (s), wakeAt (d, seconds since 1970), alarmID (s),
                 blocked (b), mechanism (s); {} for an app. What a list shows, in one round trip. -->
            <method name="ListPageAndWake">
              <arg name="after" type="s" direction="in"/>
              <arg name="limit" type="u" direction="in"/>
              <arg name="alarms" type="s" direction="out"/>
              <arg name="next" type="s" direction="out"/>
              <arg name="wake" type="a{sv}" direction="out"/>
            </method>
            <!-- Every sound name the agent can resolve: a JSON array of {name, path, source}. -->
            <method name="ListSounds">
              <arg name="sounds" type="s" direction="out"/>
            </method>
            <!-- The sound outputs alarms can ring on (the ringOn setting): a JSON array of {name, description}; the user's tools only. -->
            <method name="ListOutputs">
              <arg name="outputs" type="s" direction="out"/>
            </method>
            <!-- Plays a sound (a name, or a path for the user's own CLI) for some seconds; returns its file. -->
            <method name="PlaySound">
              <arg name="sound" type="s" direction="in"/>
              <arg name="seconds" type="d" direction="in"/>
              <arg name="path" type="s" direction="out"/>
            </method>
            <!-- The caller's authorization: notDetermined, authorized or denied; asks the user
                 (and waits for the answer) when not yet decided. -->
            <method name="RequestAuthorization">
              <arg name="state" type="s" direction="out"/>
            </method>
            <method name="AuthorizationState">
              <arg name="state" type="s" direction="out"/>
            </method>
            <!-- The user's tools only: every app's decision, and changing one. -->
            <method name="Authorizations">
              <arg name="apps" type="s" direction="out"/>
            </method>
            <method name="SetAuthorization">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="state" type="s" direction="in"/>
              <arg name="result" type="s" direction="out"/>
            </method>
            <!-- Gives an alarm (a unique id prefix) a new configuration (an AlarmRequest),
                 keeping its id: validated as Schedule validates. Returns the AlarmRecord. -->
            <method name="Update">
              <arg name="id" type="s" direction="in"/>
              <arg name="configuration" type="s" direction="in"/>
              <arg name="options" type="a{sv}" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- Skips the next occurrence of a repeating alarm. Returns the AlarmRecord. -->
            <method name="Skip">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- Undoes Skip: the occurrence it passed over rings after all. Returns the AlarmRecord. -->
            <method name="Unskip">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- Keeps an alarm waiting for its time but silences it until Enable ("disabled":
                 true in the record). Returns the AlarmRecord. -->
            <method name="Disable">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- Turns a disabled alarm on again at its next occurrence. Returns the AlarmRecord. -->
            <method name="Enable">
              <arg name="id" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- Reveille's extension of Countdown: snoozes a ringing alarm for `seconds` (more
                 than 0, at most 86400) instead of its own snooze length. Returns the AlarmRecord. -->
            <method name="Snooze">
              <arg name="id" type="s" direction="in"/>
              <arg name="seconds" type="d" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- The person pressed one of an alarm's buttons (stop, secondary, pause, resume,
                 cancel) in the user's own alert UI: as on its notification, the button does
                 what it does, the app's intent runs and its subscribers hear ActionInvoked.
                 The user's tools only. Returns the AlarmRecord after ("null" once it ended). -->
            <method name="PressButton">
              <arg name="id" type="s" direction="in"/>
              <arg name="button" type="s" direction="in"/>
              <arg name="alarm" type="s" direction="out"/>
            </method>
            <!-- Whether the next alarm will wake the machine from suspend, and why not: a
                 WakeStatus (wakes, reason, wakeAt, alarmID, lead). The user's tools only. -->
            <method name="WakeStatus">
              <arg name="status" type="s" direction="out"/>
            </method>
            <!-- The occurrences that ended, newest first, as a JSON array of {alarm, title, app,
                 due, rang, seconds, ended, outcome, by}: outcome is stopped, snoozed,
                 cancelled, changed, missedLate or missedUnanswered. An app sees its own
                 alarms' entries; the reply holds the newest that fit in 4 MiB. -->
            <method name="History">
              <arg name="entries" type="s" direction="out"/>
            </method>
            <!-- Sync through a CalDAV calendar collection (the user's tools only): the
                 collection's URL (made when it is not there), the user and the password (kept in
                 the Secret Service, never in a file). Returns the SyncStatus. -->
            <method name="SyncAdd">
              <arg name="url" type="s" direction="in"/>
              <arg name="user" type="s" direction="in"/>
              <arg name="password" type="s" direction="in"/>
              <arg name="status" type="s" direction="out"/>
            </method>
            <!-- Where sync stands: a SyncStatus (configured, url, user, rounds, lastRound,
                 problem, alarms, interval). -->
            <method name="SyncStatus">
              <arg name="status" type="s" direction="out"/>
            </method>
            <!-- Stops sync and forgets the account and its password; the alarms here and the
                 server's collection stay. -->
            <method name="SyncRemove">
            </method>
            <!-- To each subscriber whose view a change touched: the alarms it may see that
                 are new or changed (a JSON array of AlarmRecord), and the ids of those that
                 ended. Apply both to the list Subscribe returned to keep it current. -->
            <signal name="AlarmsUpdated">
              <arg name="changed" type="s"/>
              <arg name="removed" type="as"/>
            </signal>
            <!-- To subscribers of the alarm's app (and the user's tools) when it begins to
                 alert (after the AlarmsUpdated that shows it alerting). -->
            <signal name="AlarmAlerting">
              <arg name="alarm_id" type="s"/>
            </signal>
            <!-- To subscribers of the alarm's app (and the user's tools) when an occurrence
                 was missed: due (ISO 8601, UTC) while nothing could ring it ("late"), or rang
                 to its ring limit unanswered ("unanswered"). -->
            <signal name="AlarmMissed">
              <arg name="alarm_id" type="s"/>
              <arg name="due" type="s"/>
              <arg name="reason" type="s"/>
            </signal>
            <!-- To subscribers of the alarm's app (and the user's tools) when one of its
                 notification's buttons is pressed: stop, secondary, pause, resume, cancel. -->
            <signal name="ActionInvoked">
              <arg name="alarm_id" type="s"/>
              <arg name="button" type="s"/>
            </signal>
            <!-- To subscribers of that app (and the user's tools) when a decision changes. -->
            <signal name="AuthorizationChanged">
              <arg name="app_id" type="s"/>
              <arg name="state" type="s"/>
            </signal>
          </interface>
        </node>

        """
}
