import { SurveyUpgrade } from "@/components/surveys/survey-upgrade";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Upgrade survey" };

export default async function SurveyUpgradePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SurveyUpgrade id={id} />;
}
