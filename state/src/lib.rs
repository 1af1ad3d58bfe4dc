//! What a lab's page shows, as data: serde structs that round-trip through the URL (so a teacher
//! can share a link to an exact setup, and lock controls with `<name>_hide=true`) and through a
//! versioned JSON file (`lab::LabState`). Parsing never fails: bad or out-of-range values are
//! ignored or clamped, each with a notice the page shows. UI-free, so it is tested natively.

pub mod lab;
pub mod layers;
pub mod lesson_check;
pub mod names;
pub mod palette;
pub mod precision_verdict;
pub mod query;
pub mod registry;
pub mod table;

/// Each lab's settings module and its `LabState`, in one list: the macro declares the module and
/// gives the registry (`registry::Lab::settings`) its table, so a new lab is one line here.
macro_rules! labs {
    ($($id:ident => $state:ident),* $(,)?) => {
        $(pub mod $id;)*

        /// The settings table of the lab called `id`, if it has one.
        pub(crate) fn settings_table(id: &str) -> Option<registry::SettingsTable> {
            match id {
                $(stringify!($id) => Some(registry::SettingsTable::of::<$id::$state>()),)*
                _ => None,
            }
        }

        /// The notices lab `id` gives for a link's `query` (None: no such lab).
        pub fn query_notices(id: &str, query: &str) -> Option<Vec<String>> {
            match id {
                $(stringify!($id) => Some(<$id::$state as lab::LabState>::from_query(query).1),)*
                _ => None,
            }
        }
    };
}

labs! {
    playground => Playground,
    optimizers => OptimizersLab,
    landscape => Landscape,
    scaling => ScalingLab,
    cluster => ClusterLab,
    vision => VisionLab,
    precision => PrecisionLab,
    parallelism => ParallelismLab,
    bench => BenchLab,
    sparsity => SparsityLab,
    hardware => HardwareLab,
    attention => AttentionLab,
}
