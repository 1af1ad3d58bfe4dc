//! `/author`: write a lesson in the browser, no toolchain. Start from a lesson of the course, or
//! open or drop a file; every problem is listed as you type — the very checker `lab lesson check`
//! runs (`lab_state::lesson_check`, compiled into this page): the file's shape, an unknown lab or
//! metric, a setting the lab does not take, overlapping or gappy choices, a missing why,
//! placeholder text; **Preview** runs it below as a student sees it (the course's own lesson page,
//! `lesson.html?preview&draft`); **Download** saves it, for the site's `lessons/` folder.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Where the page hands the draft to the preview (the lesson page reads it with `?draft`).
const DRAFT: &str = "training-lab-preview-draft";
/// A lesson file is a few KB; anything past this is no lesson, and is refused unchecked.
const MOST_BYTES: usize = 1 << 20;

/// Every problem of `text` as a lesson file (none for an empty page).
fn problems(text: &str) -> Vec<String> {
    if text.trim().is_empty() {
        Vec::new()
    } else if text.len() > MOST_BYTES {
        vec![format!(
            "{:.1} MB: far larger than any lesson (1 MB at most); not checked",
            text.len() as f64 / 1e6
        )]
    } else {
        lab_state::lesson_check::check(text)
    }
}

#[component]
pub fn AuthorPage() -> impl IntoView {
    let text = RwSignal::new(String::new());
    let name = RwSignal::new("my-lesson.json".to_string());
    let note = RwSignal::new(String::new());
    let course = RwSignal::new(Vec::<String>::new());
    // Bumped by Preview: the preview's frame is made anew, so it runs the draft from the start.
    let preview = RwSignal::new(0u32);
    leptos::task::spawn_local(async move {
        if let Ok(b) = crate::fetch::bytes("lessons/course.json").await {
            if let Ok(ids) = lab_state::lesson_check::course_lessons(&String::from_utf8_lossy(&b)) {
                course.set(ids);
            }
        }
    });
    let found = Memo::new(move |_| text.with(|t| problems(t)));
    let take = move |file: String, body: String| {
        if body.len() > MOST_BYTES {
            note.set(format!(
                "{file}: larger than any lesson (1 MB at most); the page keeps what it had"
            ));
            return;
        }
        text.set(body);
        name.set(file.clone());
        note.set(format!("{file} opened"));
    };
    let start_from = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        if id.is_empty() {
            return;
        }
        leptos::task::spawn_local(async move {
            match crate::fetch::bytes(&format!("lessons/{id}.json")).await {
                Ok(b) => {
                    take(format!("{id}.json"), String::from_utf8_lossy(&b).into_owned());
                    note.set(format!(
                        "started from {id}.json: give yours a new name (its file name is its id)"
                    ));
                }
                Err(e) => note.set(e.to_string()),
            }
        });
    };
    let open = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        leptos::task::spawn_local(async move {
            match crate::browser::read_file(&input).await {
                Ok((file, body)) => take(file, body),
                Err(e) => note.set(e.to_string()),
            }
            input.set_value("");
        });
    };
    let drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        let Some(file) = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) else {
            return;
        };
        if file.size() > MOST_BYTES as f64 {
            note.set(format!(
                "{}: larger than any lesson (1 MB at most); the page keeps what it had",
                file.name()
            ));
            return;
        }
        leptos::task::spawn_local(async move {
            if let Ok(body) = JsFuture::from(file.text()).await {
                take(file.name(), body.as_string().unwrap_or_default());
            }
        });
    };
    let run_preview = move |_| {
        let stored = web_sys::window()
            .and_then(|w| w.local_storage().ok().flatten())
            .is_some_and(|s| s.set_item(DRAFT, &text.get_untracked()).is_ok());
        if stored {
            preview.update(|n| *n += 1);
        } else {
            note.set(
                "this browser keeps no storage for the page: paste the file into the preview page instead"
                    .into(),
            );
        }
    };
    let download =
        move |_| crate::browser::download(&name.get_untracked(), "application/json", &text.get_untracked());
    view! {
        <header class="top">
            <h1>"Write a lesson"</h1>
            <p class="tagline">"Predict-then-run, in the browser: no toolchain, no build."</p>
        </header>
        <main class="author" data-testid="author">
            <p>"A lesson is one small file. Start from one of the course's, or open or drop yours: "
                "every problem is listed as you type (the checks of "<code>"lab lesson check"</code>"), "<b>"Preview"</b>" runs it below as a student sees it, and "
                <b>"Download"</b>" saves it. Put the file in the site's "<code>"lessons/"</code>" folder and its id in "<code>"course.json"</code>". "
                <a href="book/instructor/course.html">"The format"</a>" · "<a href="course.html">"the course"</a></p>
            <div class="buttons wrap">
                <label>"Start from "
                    <select data-testid="author-start" on:change=start_from>
                        <option value="">"a lesson of the course…"</option>
                        {move || course.get().into_iter().map(|id| view! { <option value=id.clone()>{id.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label class="file-button">"Open a file"
                    <input type="file" accept=".json,application/json" data-testid="author-file" on:change=open/>
                </label>
                <button data-testid="author-preview" class="primary" on:click=run_preview
                    disabled=move || !found.get().is_empty() || text.with(|t| t.trim().is_empty())
                    title="runs once no problem is left">"Preview"</button>
                <button data-testid="author-download" on:click=download disabled=move || text.with(|t| t.trim().is_empty())>"Download"</button>
                <label>"File name "<input data-testid="author-name" prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/></label>
            </div>
            <p class="small" role="status" data-testid="author-note">{move || note.get()}</p>
            <textarea data-testid="author-text" rows="18" spellcheck="false" aria-label="the lesson file (JSON); drop a file here"
                prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))
                on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default() on:drop=drop></textarea>
            <div role="status" data-testid="author-problems">
                {move || {
                    let p = found.get();
                    if text.with(|t| t.trim().is_empty()) {
                        view! { <p>"No lesson yet: start from one, open a file or type."</p> }.into_any()
                    } else if p.is_empty() {
                        view! { <p data-testid="author-ok">"No problem found: Preview runs it."</p> }.into_any()
                    } else {
                        view! {
                            <p class="problem">{format!("{} problem(s), all of them:", p.len())}</p>
                            <ul>{p.into_iter().map(|x| view! { <li>{x}</li> }).collect_view()}</ul>
                        }.into_any()
                    }
                }}
            </div>
            {move || (preview.get() > 0).then(|| view! {
                <iframe data-testid="author-preview-frame" class="author-preview" title="the lesson as a student sees it"
                    src=format!("lesson.html?preview&draft&run={}", preview.get())></iframe>
            })}
        </main>
    }
}
