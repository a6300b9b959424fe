/// The MPRIS D-Bus Interface Specification 2.2, as the agent's player implements it: the
/// root interface and the player interface, every property the specification requires.
package enum MPRISInterfaces {
    /// The player's name on the session bus, owned only while an alarm rings.
    package static let busName = "org.mpris.MediaPlayer2.reveille"
    package static let path = "/org/mpris/MediaPlayer2"
    package static let rootInterface = "org.mpris.MediaPlayer2"
    package static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// The track id the specification gives "no track".
    package static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
    /// The largest call: OpenUri's URI is the only text a caller sends.
    package static let maximumCallBytes = 4096

    // Rate and Volume are read-only here: the alarm's loudness is not a remote's to turn down.
    package static let xml = """
        <node>
          <interface name="org.mpris.MediaPlayer2">
            <method name="Raise"/>
            <method name="Quit"/>
            <property name="CanQuit" type="b" access="read"/>
            <property name="CanRaise" type="b" access="read"/>
            <property name="HasTrackList" type="b" access="read"/>
            <property name="Identity" type="s" access="read"/>
            <property name="DesktopEntry" type="s" access="read"/>
            <property name="SupportedUriSchemes" type="as" access="read"/>
            <property name="SupportedMimeTypes" type="as" access="read"/>
          </interface>
          <interface name="org.mpris.MediaPlayer2.Player">
            <method name="Next"/>
            <method name="Previous"/>
            <method name="Pause"/>
            <method name="PlayPause"/>
            <method name="Stop"/>
            <method name="Play"/>
            <method name="Seek"><arg direction="in" name="Offset" type="x"/></method>
            <method name="SetPosition"><arg direction="in" name="TrackId" type="o"/><arg direction="in" name="Position" type="x"/></method>
            <method name="OpenUri"><arg direction="in" name="Uri" type="s"/></method>
            <signal name="Seeked"><arg name="Position" type="x"/></signal>
            <property name="PlaybackStatus" type="s" access="read"/>
            <property name="Rate" type="d" access="read"/>
            <property name="Metadata" type="a{sv}" access="read"/>
            <property name="Volume" type="d" access="read"/>
            <property name="Position" type="x" access="read"/>
            <property name="MinimumRate" type="d" access="read"/>
            <property name="MaximumRate" type="d" access="read"/>
            <property name="CanGoNext" type="b" access="read"/>
            <property name="CanGoPrevious" type="b" access="read"/>
            <property name="CanPlay" type="b" access="read"/>
            <property name="CanPause" type="b" access="read"/>
            <property name="CanSeek" type="b" access="read"/>
            <property name="CanControl" type="b" access="read"/>
          </interface>
        </node>
        """
}
