//! What a lab's page shows, as data: serde structs that round-trip through the URL (so a teacher
//! can share a link to an exact setup, and lock controls with `<name>_hide=true`) and through a
//! versioned JSON file (`lab::LabState`). Parsing never fails: bad or out-of-range values are
//! ignored or clamped, each with a notice the page shows. UI-free, so it is tested natively.

pub mod error;
pub mod lab;
pub mod layer_error;
pub mod layers;
pub mod lesson_check;
pub mod names;
pub mod notice;
pub mod palette;
pub mod precision_verdict;
pub mod query;
pub mod range;
pub mod registry;
pub mod table;
pub mod teacher_notes;

/// Each lab's settings module and its `LabState` (`<id>::State`), from the registry: `build.rs`
/// declares every lab's module from its folder `src/labs/<id>/` and calls this macro with the
/// registry's ids, so a new lab is its folder and its entry in `labs.json`.
macro_rules! labs {
    ($($id:ident),* $(,)?) => {
        /// The settings table of the lab called `id`, if it has one.
        pub(crate) fn settings_table(id: &str) -> Option<registry::SettingsTable> {
            match id {
                $(stringify!($id) => Some(registry::SettingsTable::of::<$id::State>()),)*
                _ => None,
            }
        }

        /// The notices lab `id` gives for a link's `query` (None: no such lab).
        pub fn query_notices(id: &str, query: &str) -> Option<Vec<String>> {
            match id {
                $(stringify!($id) => Some(<$id::State as lab::LabState>::from_query(query).1),)*
                _ => None,
            }
        }

        /// Calls `visit.lab::<S>(id)` with every lab's settings type, in the registry's order:
        /// the tests that must cover every lab (fuzzing, round trips) take their list from here.
        pub fn for_each_lab(visit: &mut impl EachLab) {
            $(visit.lab::<$id::State>(stringify!($id));)*
        }
    };
}

/// What `for_each_lab` does with each lab's settings type.
pub trait EachLab {
    fn lab<S: lab::LabState + std::fmt::Debug + 'static>(&mut self, id: &str);
}

include!(concat!(env!("OUT_DIR"), "/labs.rs"));
