// The page talks to the JSON API only: what it shows a user is what a client of
// the API gets, the field errors of a 400 included.
const list = document.getElementById("notes");
const form = document.getElementById("new-note");
const search = document.getElementById("search");

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, data: response.status === 204 ? null : await response.json() };
}

function show(notes) {
  list.replaceChildren(...notes.map((note) => {
    const item = document.createElement("li");
    item.className = note.pinned ? "pinned" : "";
    const title = document.createElement("h2");
    title.textContent = note.title;
    const body = document.createElement("p");
    body.textContent = note.body;
    const remove = document.createElement("button");
    remove.textContent = "Delete";
    remove.onclick = async () => { await api("DELETE", `/api/notes/${note.id}`); load(); };
    item.append(title, body, remove);
    return item;
  }));
}

async function load() {
  const q = search.value.trim();
  const { data } = await api("GET", "/api/notes" + (q ? `?q=${encodeURIComponent(q)}` : ""));
  show(data);
}

form.onsubmit = async (event) => {
  event.preventDefault();
  // form.elements: form.title would be the form's own title attribute.
  const { title, body, pinned } = form.elements;
  const note = { title: title.value, body: body.value, pinned: pinned.checked };
  const { status, data } = await api("POST", "/api/notes", note);
  for (const small of form.querySelectorAll("small.error")) {
    small.textContent = (status === 400 && data.fields?.[small.dataset.for]) || "";
  }
  document.getElementById("form-error").textContent = status === 201 ? "" : data.error;
  if (status === 201) { form.reset(); load(); }
};

search.oninput = load;
load();
