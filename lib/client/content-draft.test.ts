import { describe, expect, it } from "vitest";
import {
  contentChanges,
  contentErrors,
  describeQuestionPlace,
  moveChat,
  moveQuestionTo,
  stepQuestion,
  toBody,
  toDraft,
  type Draft,
} from "./content-draft";

const id = (n: number) => n.toString(16).padStart(24, "0");

function draft(): Draft {
  return toDraft([
    {
      _id: id(1),
      name: "Start",
      questions: [
        { _id: id(11), text: "Name?", type: "text", options: [], order: 1, answerCount: 3 },
        { _id: id(12), text: "Team?", type: "single_choice", options: ["Red", "Blue"], order: 2, answerCount: 0 },
      ],
    },
    {
      _id: id(2),
      name: "End",
      questions: [{ _id: id(21), text: "Score?", type: "rating", options: [], order: 1, answerCount: 0 }],
    },
  ]);
}

const texts = (d: Draft) => d.map((chat) => chat.questions.map((question) => question.text));

describe("the question editor's draft", () => {
  it("becomes the PUT body in the order shown, with options only for the choice types", () => {
    expect(toBody(draft())).toEqual({
      chat: [
        {
          _id: id(1),
          name: "Start",
          questions: [
            { _id: id(11), text: "Name?", type: "text" },
            { _id: id(12), text: "Team?", type: "single_choice", options: ["Red", "Blue"] },
          ],
        },
        { _id: id(2), name: "End", questions: [{ _id: id(21), text: "Score?", type: "rating" }] },
      ],
    });
  });

  it("moves a question one step within its chat, then past the chat's edge into the next one", () => {
    let d = stepQuestion(draft(), id(11), 1);
    expect(texts(d)).toEqual([["Team?", "Name?"], ["Score?"]]);
    d = stepQuestion(d, id(11), 1);
    expect(texts(d)).toEqual([["Team?"], ["Name?", "Score?"]]);
    expect(describeQuestionPlace(d, id(11))).toBe("“Name?” is now question 1 of 2 in chat 2, End.");
    d = stepQuestion(d, id(11), -1);
    expect(texts(d)).toEqual([["Team?", "Name?"], ["Score?"]]);
  });

  it("leaves the draft as it is at the very first and very last place", () => {
    const d = draft();
    expect(stepQuestion(d, id(11), -1)).toBe(d);
    expect(stepQuestion(d, id(21), 1)).toBe(d);
  });

  it("moves chats, and drops a dragged question at another chat's place", () => {
    expect(moveChat(draft(), 1, 0).map((chat) => chat.name)).toEqual(["End", "Start"]);
    expect(texts(moveQuestionTo(draft(), id(21), { chat: 0, question: 1 }))).toEqual([
      ["Name?", "Score?", "Team?"],
      [],
    ]);
  });

  it("names each problem on its field in plain words before anything is sent", () => {
    const d = draft();
    d[0]!.name = " ";
    d[0]!.questions[1]!.options = "Red\n\nRed";
    d[1]!.questions[0]!.text = "";
    expect(contentErrors(d)).toEqual({
      "chat.0.name": "Enter the chat's name.",
      "chat.0.questions.1.options": "Each option may appear only once.",
      "chat.1.questions.0.text": "Enter the question.",
    });
    d[0]!.questions[1]!.options = "Red";
    expect(contentErrors(d)["chat.0.questions.1.options"]).toBe("Write 2 to 50 different options, one a line.");
  });
});

describe("the changes between two versions of the content", () => {
  it("names questions added, removed, reworded and moved, and chats renamed", () => {
    const before = toBody(draft()).chat.map((chat, c) => ({
      _id: chat._id!,
      name: chat.name,
      questions: chat.questions.map((question) => ({
        _id: question._id!,
        text: question.text,
        type: question.type,
        options: question.options ?? [],
        order: c,
      })),
    }));
    const after = structuredClone(before);
    after[0]!.name = "Beginning";
    after[0]!.questions.reverse();
    after[0]!.questions[0]!.text = "Which team?";
    after[1]!.questions = [{ _id: id(99), text: "Anything else?", type: "text", options: [], order: 1 }];
    const changes = contentChanges(before, after);
    expect(changes).toEqual(
      expect.arrayContaining([
        { what: "chat", kind: "renamed", before: "Start", after: "Beginning" },
        { what: "question", kind: "removed", before: "“Score?” (Rating 1–5)" },
        { what: "question", kind: "added", after: "“Anything else?” (Text)" },
        {
          what: "question",
          kind: "reworded",
          before: "“Team?” (Single choice: Red · Blue)",
          after: "“Which team?” (Single choice: Red · Blue)",
        },
        {
          what: "question",
          kind: "moved",
          before: "“Name?”: question 1 of chat 1, Start",
          after: "“Name?”: question 2 of chat 1, Beginning",
        },
      ]),
    );
    expect(contentChanges(before, before)).toEqual([]);
  });
});
