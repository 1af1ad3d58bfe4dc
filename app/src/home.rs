//! The landing page (`/labs`): every lab in two sentences, with its link; and the page an embed
//! of a lab that does not exist gets.

use leptos::prelude::*;

#[component]
pub fn HomePage() -> impl IntoView {
    view! {
        <header class="top">
            <h1>"Training Lab"</h1>
            <p class="tagline">"Neural-network training you can see, live in the browser. Pick a lab, or follow "
                <a href="course.html" data-testid="home-course">"the course"</a>" (predict, then run) or "
                <a href="tutorial.html">"the tutorial"</a>"; "
                <a href="book/index.html" data-testid="home-book">"the book"</a>" explains each lab, the theory and the code:"</p>
        </header>
        <main class="home" data-testid="home">
            {lab_state::registry::labs().iter().map(|lab| view! {
                <article>
                    <h2><a href=lab.href() data-testid=format!("home-{}", lab.title)>{lab.title.as_str()}</a></h2>
                    <p>{lab.summary.as_str()}</p>
                </article>
            }).collect_view()}
        </main>
    }
}

/// What an embed naming no lab of the registry shows: the name it asked for and every lab's.
#[component]
pub fn NoSuchLab(name: String) -> impl IntoView {
    let names = lab_state::registry::labs()
        .iter()
        .map(|l| l.id.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    view! {
        <main class="home" data-testid="no-such-lab">
            <p class="banner" role="alert">
                "This embed asks for a lab called \u{201c}"{name}"\u{201d}, and there is none. "
                "The labs are: "{names}"."
            </p>
        </main>
    }
}
