//! Sharing a lab's setup, the same for every lab: its settings live in the URL (read at start,
//! rewritten on every change), a bar offers "copy link", "save settings" (a versioned JSON file)
//! and "load settings", notices say what a link or file could not use, and the controls an
//! instructor hid (`<name>_hide=true`) are taken off the page.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use lab_state::lab::LabState;

use crate::browser;

/// The lab's settings from the URL, with the notices reading them gave; the URL follows every
/// later change, so the address bar always reproduces the page. The controls an instructor hid
/// are known to the page's components through `hidden`.
pub fn url_state<S: LabState + Send + Sync + 'static>() -> (RwSignal<S>, RwSignal<Vec<String>>) {
    let (state, notices) = S::from_query(&browser::query());
    let (state, notices) = (RwSignal::new(state), RwSignal::new(notices));
    Effect::new(move |_| browser::set_query(&state.with(S::to_query)));
    provide_hiding(test_prefix(S::LAB), Memo::new(move |_| state.with(hidden_names)));
    (state, notices)
}

/// Makes `names` (the hidden controls' names) what `hidden` answers from, on this page.
pub fn provide_hiding(prefix: &'static str, names: Memo<Vec<String>>) {
    provide_context(Hiding { prefix, names });
}

/// The controls and charts hidden on this page (`<name>_hide=true`), for `hidden`.
#[derive(Clone, Copy)]
struct Hiding {
    prefix: &'static str,
    names: Memo<Vec<String>>,
}

/// True while the URL (or a loaded settings file) hides control or chart `name` of this page:
/// bind it as `class:hidden=hidden("workers")` on what goes away with it (a control's label, a
/// chart's figure). Reactive, like every other view of the settings; false outside a lab page.
pub fn hidden(name: &'static str) -> impl Fn() -> bool + Copy + Send + Sync + 'static {
    let hiding = use_context::<Hiding>();
    move || hiding.is_some_and(|h| h.names.with(|n| n.iter().any(|x| x == name)))
}

/// `hidden` for a control known by its test id (`cl-workers`: the lab's prefix, then the name).
pub fn hidden_id(id: &'static str) -> impl Fn() -> bool + Copy + Send + Sync + 'static {
    let hiding = use_context::<Hiding>();
    move || {
        hiding.is_some_and(|h| {
            let name = id.strip_prefix(h.prefix).and_then(|r| r.strip_prefix('-'));
            name.is_some_and(|name| h.names.with(|n| n.iter().any(|x| x == name)))
        })
    }
}

/// The names in the state's `hide` set.
fn hidden_names<S: LabState>(state: &S) -> Vec<String> {
    state.hidden().iter().cloned().collect()
}

/// The test-id prefix of each lab's controls.
fn test_prefix(lab: &str) -> &'static str {
    lab_state::registry::by_id(lab).map_or("lab", |l| l.prefix.as_str())
}

/// Copies text to the clipboard where the browser allows it (a secure page, a user's click).
fn copy_to_clipboard(text: &str) {
    let Some(window) = web_sys::window() else { return };
    let clipboard =
        js_sys::Reflect::get(&window.navigator(), &"clipboard".into()).unwrap_or(JsValue::UNDEFINED);
    if clipboard.is_undefined() {
        return;
    }
    if let Ok(write) = js_sys::Reflect::get(&clipboard, &"writeText".into()) {
        if let Some(write) = write.dyn_ref::<js_sys::Function>() {
            // A refused copy is fine: the link is shown to copy by hand.
            if let Ok(p) = write.call1(&clipboard, &text.into()) {
                if let Ok(p) = p.dyn_into::<js_sys::Promise>() {
                    leptos::task::spawn_local(async move {
                        let _ = wasm_bindgen_futures::JsFuture::from(p).await;
                    });
                }
            }
        }
    }
}

/// "Copy link", "Copy embed code", "Save settings", "Load settings" and the notices, for any lab.
#[component]
pub fn StateBar<S: LabState + Send + Sync + 'static>(
    state: RwSignal<S>,
    notices: RwSignal<Vec<String>>,
    /// Where a loaded file goes when the page applies settings itself (else into `state`).
    #[prop(optional)]
    loaded: Option<RwSignal<Option<S>>>,
) -> impl IntoView {
    let prefix = test_prefix(S::LAB);
    let link = RwSignal::new(None::<String>);
    let copy = move |_| {
        let href = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        copy_to_clipboard(&href);
        link.set(Some(href));
    };
    let embed = RwSignal::new(None::<plot_text::embed_code::EmbedCode>);
    let copy_embed = move |_| {
        let window = web_sys::window();
        let href = window
            .as_ref()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        let document = window.as_ref().and_then(|w| w.document());
        let title = document.as_ref().map(|d| d.title()).unwrap_or_default();
        // The frame as tall as the lab is now, within what a course page can give it.
        let height = document
            .and_then(|d| d.document_element())
            .map_or(640, |e| e.scroll_height().clamp(480, 1200) as u32);
        let code = plot_text::embed_code::embed_code(&href, S::LAB, &title, height);
        copy_to_clipboard(&code.iframe);
        embed.set(Some(code));
    };
    let save = move |_| {
        browser::download(
            &format!("{}-settings.json", S::LAB),
            "application/json",
            &state.with(S::to_json),
        )
    };
    let load = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        leptos::task::spawn_local(async move {
            match browser::read_file(&input).await {
                Ok((name, text)) => match S::from_json(&text) {
                    Ok((mut s, n)) => {
                        // A file may hide controls, but not the bar with the Load control (unless
                        // the link already did): it could not be undone by loading another.
                        if !state.with_untracked(|c| c.hidden().contains("share")) {
                            s.hidden_mut().remove("share");
                        }
                        let n = if n.is_empty() {
                            vec!["settings loaded".to_string()]
                        } else {
                            n
                        };
                        match loaded {
                            Some(l) => l.set(Some(s)),
                            None => state.set(s),
                        }
                        notices.set(n.into_iter().map(|n| format!("{name}: {n}")).collect());
                    }
                    Err(e) => notices.set(vec![format!("{name}: {e} (the settings shown are kept)")]),
                },
                Err(e) => notices.set(vec![e.to_string()]),
            }
            input.set_value("");
        });
    };
    view! {
        <div class="share" class:hidden=hidden("share") data-testid=format!("{prefix}-share")>
            <div class="buttons wrap">
                <button data-testid=format!("{prefix}-copy-link") on:click=copy title="the address of this exact setup">"Copy link"</button>
                <button data-testid=format!("{prefix}-copy-embed") on:click=copy_embed title="an iframe of this exact setup, for a course page or an LMS">"Copy embed code"</button>
                <button data-testid=format!("{prefix}-save-settings") on:click=save>"Save settings"</button>
                <label class="file-button">"Load settings"
                    <input type="file" accept=".json,application/json" data-testid=format!("{prefix}-load-settings") on:change=load/>
                </label>
            </div>
            {move || link.get().map(|href| view! {
                <label class="small">"Link to this setup (copied where the browser allows)"
                    <input readonly=true data-testid=format!("{prefix}-link") prop:value=href
                        on:focus=|ev| { if let Some(i) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) { i.select(); } }/>
                </label>
            })}
            {move || embed.get().map(|code| view! {
                <label class="small">"Embed code: an iframe, for any course page or LMS (copied where the browser allows)"
                    <textarea readonly=true rows="3" data-testid=format!("{prefix}-embed-iframe") prop:value=code.iframe
                        on:focus=|ev| { if let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) { t.select(); } }/>
                </label>
                <label class="small">"Or, where the page may run script, sized to the lab and able to talk to it"
                    <textarea readonly=true rows="3" data-testid=format!("{prefix}-embed-script") prop:value=code.script
                        on:focus=|ev| { if let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) { t.select(); } }/>
                </label>
            })}
        </div>
        // Outside the share bar: hiding it (every lesson does) must not hide what was refused.
        // Announced as they come (a status region around the list: a list with a role of its own
        // would no longer be a list to a screen reader).
        <div role="status">
            <ul class="notices" data-testid=format!("{prefix}-notices")>
                {move || notices.get().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
            </ul>
        </div>
    }
}
