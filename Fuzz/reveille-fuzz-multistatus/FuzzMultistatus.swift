import ReveilleCalendar
import ReveilleFuzzSupport

/// A CalDAV server's multistatus answer as the sync reads it (PROPFIND and sync REPORT):
/// GMarkup with namespaces resolved, bounded in depth and in responses. A hostile server's
/// answer is read or refused with an `HTTPFailure`, and never traps; what is read stays within
/// the bounds.
@main enum FuzzMultistatus {
    static func main() {
        FuzzTarget.main { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            guard let answer = try? Multistatus.parse(text) else { return }
            precondition(answer.responses.count <= Multistatus.maximumResponses, "more responses than the bound")
            for response in answer.responses {
                precondition(response.href.utf8.count <= text.utf8.count, "an href longer than the answer")
                precondition((response.calendarData?.utf8.count ?? 0) <= text.utf8.count, "calendar data longer than the answer")
            }
            // The reader keeps no state between answers.
            precondition((try? Multistatus.parse(text)) == answer, "the same answer read twice differs")
        }
    }
}
