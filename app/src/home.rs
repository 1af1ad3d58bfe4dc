//! The landing page (`/labs`): every lab in two sentences, with its link.

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
