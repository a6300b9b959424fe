import ReveilleWords
import Testing

/// How a message's placeholders are filled: in order, reordered by a translation, `%%`, and a
/// stray `%` kept, with text around them in any script.
@Suite("Message placeholders")
struct LocalizationFormatTests {
    @Test(arguments: [
        ("Rings at %@ · %@ left", ["07:00", "5 min"], "Rings at 07:00 · 5 min left"),
        ("%2$@ vor %1$@", ["Wecker", "5 min"], "5 min vor Wecker"),
        ("100%% sure, %@", ["yes"], "100% sure, yes"),
        ("50% off %@", ["now"], "50% off now"),
        ("ends with %", [], "ends with %"),
        ("%0$@ and %9$@", ["a"], "%0$@ and "),
        ("%@ %@ %@", ["only one"], "only one  "),
        ("no placeholder", ["unused"], "no placeholder"),
        ("é%@🙂%1$@ü", ["x"], "éx🙂xü"),
        ("@%@́", ["a"], "@á"),
        ("", [], ""),
    ] as [(String, [String], String)])
    func placeholdersAreFilled(template: String, arguments: [String], expected: String) {
        #expect(Localization.format(template, arguments) == expected)
    }
}
