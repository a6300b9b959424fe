/// Marks `msgid` for translation without translating it here (gettext's `N_`): text stored or
/// sent as English, such as the preset buttons' labels, and shown in the user's language by
/// whoever displays it (`Localization.text` in the agent). `scripts/update-po` collects it.
package func N_(_ msgid: String) -> String {
    msgid
}
