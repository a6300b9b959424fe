import FoundationEssentials
@testable import ReveilleCalendar
import ReveilleModel
import Testing

/// Reveille's monthly, yearly and every-few-days repeats as the RRULEs other calendars read:
/// a day some months lack is the last of the days up to it, as Reveille rings it.
@Suite("Recurrence rules")
struct RecurrenceRuleTests {
    @Test func monthlyYearlyAndEveryFewDaysAreWrittenAsCalendarsReadThem() {
        #expect(ICalRecurrence.rule(.monthly(day: 15)) == "FREQ=MONTHLY;BYMONTHDAY=15")
        #expect(ICalRecurrence.rule(.monthly(day: 31)) == "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1")
        #expect(ICalRecurrence.rule(.monthly(day: 29)) == "FREQ=MONTHLY;BYMONTHDAY=28,29;BYSETPOS=-1")
        #expect(ICalRecurrence.rule(.yearly(month: 3, day: 21)) == "FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=21")
        #expect(ICalRecurrence.rule(.yearly(month: 2, day: 29)) == "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1")
        #expect(ICalRecurrence.rule(.yearly(month: 4, day: 30)) == "FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=30")
        #expect(ICalRecurrence.rule(.everyDays(3, from: CalendarDay(year: 2026, month: 11, day: 23))) == "FREQ=DAILY;INTERVAL=3")
        #expect(ICalRecurrence.rule(.weekly([.monday, .wednesday])) == "FREQ=WEEKLY;BYDAY=MO,WE")
    }
}
