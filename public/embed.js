// Training Lab embeds: turns every <div data-lab="optimizers" data-state="..."> into the lab in
// an iframe (?embed=1, this page's origin allowed to talk to it), sized to its content.
//   <script src="embed.js" data-lab-base="https://your.host/lab/"></script>
//   <div data-lab="playground" data-state="dataset=xor&hidden=4&dataset_hide=true"></div>
// data-focus="<chart>" (one of the lab's charts in state/labs.json) shows that figure first.
// The host can then talk to a lab:  TrainingLab.send(div, { type: 'lab-start' })
// and listen:  div.addEventListener('lab-metrics', (e) => console.log(e.detail))
(function () {
  const script = document.currentScript;
  const base = new URL((script && script.dataset.labBase) || './', (script && script.src) || location.href);
  // A lab's route is its name, the playground's the site's root (state/labs.json, checked by
  // state/tests/registry.rs); the lab page says so when no lab has the name asked for.
  const route = (lab) => (lab === 'playground' ? '' : lab);
  const frames = new Map();

  function mount(div) {
    const lab = div.dataset.lab;
    if (!/^[a-z][a-z0-9-]*$/.test(lab || '') || div.querySelector('iframe')) return;
    const state = (div.dataset.state || '').replace(/^\?/, '');
    const url = new URL(route(lab), base);
    const focus = /^[a-z][a-z0-9-]*$/.test(div.dataset.focus || '') ? `&focus=${div.dataset.focus}` : '';
    url.search = `embed=1&lab=${lab}&origins=${encodeURIComponent(location.origin)}${focus}${state ? `&${state}` : ''}`;
    const frame = document.createElement('iframe');
    frame.src = url.href;
    frame.title = `Training Lab: ${lab}`;
    frame.loading = 'lazy';
    frame.style.cssText = 'width:100%;border:0;display:block;min-height:320px';
    div.appendChild(frame);
    frames.set(frame, div);
  }

  window.addEventListener('message', (event) => {
    for (const [frame, div] of frames) {
      if (event.source !== frame.contentWindow || event.origin !== base.origin) continue;
      const data = event.data || {};
      if (data.type === 'lab-size' && Number.isFinite(data.height)) {
        frame.style.height = `${Math.min(Math.max(data.height, 200), 6000)}px`;
      } else if (typeof data.type === 'string' && data.type.startsWith('lab-')) {
        div.dispatchEvent(new CustomEvent(data.type, { detail: data }));
      }
    }
  });

  window.TrainingLab = {
    send(div, message) {
      const frame = div.querySelector('iframe');
      if (frame && frame.contentWindow) frame.contentWindow.postMessage(message, base.origin);
    },
    mountAll() { document.querySelectorAll('div[data-lab]').forEach(mount); },
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', window.TrainingLab.mountAll);
  else window.TrainingLab.mountAll();
})();
